# Writes two small Inspect AI logs for ragmeter's reader test (inspect-ai 0.3.285, mockllm).
import random

from inspect_ai import Task, eval, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes, match
from inspect_ai.solver import generate


@task
def tiny():
    samples = [
        Sample(id=f"q{i}", input=f"question {i}", target="yes", metadata={"doc": f"d{i // 2}"})
        for i in range(6)
    ]
    return Task(dataset=samples, solver=generate(), scorer=[includes(), match(location="any")])


for name, p in (("a", 0.7), ("b", 0.4)):
    rng = random.Random(name)
    outputs = []
    for _ in range(12):
        output = ModelOutput.from_content("mockllm/model", "yes" if rng.random() < p else "no")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        outputs.append(output)
    model = get_model("mockllm/model", custom_outputs=outputs)
    eval(tiny(), model=model, epochs=2, log_dir=f"logs_{name}", display="none", max_connections=1)
