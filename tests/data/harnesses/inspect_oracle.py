# The oracle of ragmeter's Inspect reader: the values inspect_ai's own read_eval_log and
# value_to_float give for each sample, epoch and scorer.
import json
import sys

import inspect_ai
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import value_to_float

to_float = value_to_float()
out = {}
for name in sys.argv[1:]:
    log = read_eval_log(name)
    rows = []
    for s in log.samples:
        for scorer, score in s.scores.items():
            rows.append([s.id, s.epoch, scorer, to_float(score.value), s.metadata["doc"]])
    out[name.rsplit("/", 1)[-1]] = {
        "model": log.eval.model,
        "task": log.eval.task,
        "inspect_ai": inspect_ai.__version__,
        "rows": rows,
    }
print(json.dumps(out, indent=1))
