"""ranx's own unit tests (https://github.com/AmenRa/ranx, tests/unit/ranx at commit
2cae52f00c2c15136a07d573027744109792604d) run through ragmeter.compat.ranx with only the
imports changed (``from ranx`` is ``from ragmeter.compat.ranx``, ``import ranx.metrics`` is
``import ragmeter.compat.ranx.metrics``).

The tests of fusion and normalisation (fusion/, normalization/) call ranx's per-method
functions (``ranx.fusion.wsum``, ``probfuse_train``, ``ranx.normalization.min_max_norm``...),
which ``ragmeter.compat.ranx.fusion`` and ``.normalization`` provide over ragmeter's fusion
kernel. Not ported, because they import ranx's internals at module level (so they cannot even
be collected): data_structures/qrels_test.py, run_test.py and report_test.py
(``ranx.data_structures`` and numba typed lists), fusion/bayesfuse_test.py and
fusion/condorcet_test.py (private helpers of ``ranx.fusion.bayesfuse`` and
``ranx.fusion.condorcet``).
"""
