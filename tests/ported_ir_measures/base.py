# Ported from https://github.com/terrierteam/ir_measures tests/base.py at commit
# dc04a88f49b181a4fc5e7a35e4410735ea4470bd: verbatim but for the import of ir_measures, which is
# ragmeter.compat.ir_measures (see __init__.py of this folder). MIT licence, ir_measures' authors.
# ruff: noqa
import unittest
import itertools
from ragmeter.compat import ir_measures
from ragmeter.compat.ir_measures import *


class BaseMeasureTest(unittest.TestCase):
    def assertMetrics(self, a, b, places=4, not_equal=False):
        a = sorted(a)
        b = sorted(b)
        self.assertEqual(len(a), len(b))
        for m0, m1 in zip(a, b):
            self.assertEqual(m0.query_id, m1.query_id)
            self.assertEqual(m0.measure, m1.measure)
            if not_equal:
                self.assertNotAlmostEqual(m0.value, m1.value)
            else:
                self.assertAlmostEqual(m0.value, m1.value, places=places)
