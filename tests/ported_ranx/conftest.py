"""ranx's own unit tests (https://github.com/AmenRa/ranx, tests/unit/ranx at commit
2cae52f00c2c15136a07d573027744109792604d) run through ragmeter.compat.ranx with only the
imports changed (``from ranx`` is ``from ragmeter.compat.ranx``, ``import ranx.metrics`` is
``import ragmeter.compat.ranx.metrics``).

The tests of fusion and normalisation (fusion/, normalization/) call ranx's per-method
functions (``ranx.fusion.wsum``, ``probfuse_train``, ``ranx.normalization.min_max_norm``...),
which ``ragmeter.compat.ranx.fusion`` and ``.normalization`` provide over ragmeter's fusion
kernel. The tests of ``Qrels`` and ``Run`` (data_structures/qrels_test.py and run_test.py)
import ``ranx.data_structures.qrels``/``.run``, which ``ragmeter.compat.ranx.data_structures``
provides; they run in a copy of ranx's test data (data_structures/conftest.py). Not ported:
data_structures/report_test.py (ranx's ``Report``, which the drop-in does not provide: asking
for it is an error naming it and ragmeter's ``compare_many``), fusion/bayesfuse_test.py and
fusion/condorcet_test.py (they import private helpers of ``ranx.fusion.bayesfuse`` and
``ranx.fusion.condorcet`` at module level).
"""
