"""ir_measures' own test suite (https://github.com/terrierteam/ir_measures, tests/ at commit
dc04a88f49b181a4fc5e7a35e4410735ea4470bd), run through ragmeter.compat.ir_measures with only
the import changed: ``import ir_measures`` is ``from ragmeter.compat import ir_measures`` and
``from ir_measures[.x] import ...`` is ``from ragmeter.compat.ir_measures[.x] import ...``.
The data files (compat.qrels, cwl.run...) are ir_measures'. Tests of parts the drop-in does
not provide are strict xfails expecting the error that names the part (conftest.py)."""
