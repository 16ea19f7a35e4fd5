"""The sqlite cache: reruns make no call, keys hold the model, modes, resuming a crashed run."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from ragmeter import InvalidInputError
from ragmeter.judges import (
    JudgeCache,
    Limits,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    PairwisePreferenceMetric,
    RuleJudge,
    Sample,
    ScriptedJudge,
    as_judge,
    evaluate,
)

SAMPLES = [
    Sample("Where is Paris?", "Paris is in France. It is big.", ("Paris is in France.",), id="a"),
    Sample(
        "Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ("Hamlet is by Shakespeare.",), id="b"
    ),
    Sample("What is blue?", "I don't know.", ("The sky is blue.",), id="c"),
]
METRICS = ["groundedness", "faithfulness", "context_relevancy", "answer_relevancy"]


def run(server, cache, *, model="m", **options):
    judge = OpenAICompatibleJudge(base_url=server.base_url, model=model)
    embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e")
    return evaluate(SAMPLES, METRICS, judge=judge, embedder=embedder, cache=cache, **options)


def values(results):
    return [(r.sample_id, r.metric, r.score.value, r.score.status) for r in results.rows]


def test_a_rerun_makes_zero_calls(server, tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    first = run(server, cache)
    made = len(server.requests)
    second = run(server, cache)
    assert len(server.requests) == made
    assert values(second) == values(first)
    total = second.total_usage()
    assert (total.calls, total.embedding_calls) == (0, 0)
    assert total.cache_hits > 0 and total.embedding_cache_hits > 0
    assert second.manifest["cache"] == {
        "path": cache,
        "mode": "read_write",
        "entries": len(JudgeCache(cache)),
    }


def test_the_model_is_part_of_the_key(server, tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    run(server, cache, model="model-a")
    chats = server.count("chat")
    run(server, cache, model="model-b")
    assert server.count("chat") == 2 * chats


@pytest.mark.parametrize("change", [{"temperature": 0.7}, {"seed": 1}, {"max_tokens": 300}])
def test_request_parameters_are_part_of_the_key(server, tmp_path, change):
    cache = str(tmp_path / "judge.sqlite")
    run(server, cache)
    chats = server.count("chat")
    run(server, cache, **change)
    assert server.count("chat") == 2 * chats


def test_repeated_samples_have_their_own_entries(tmp_path):
    judge = ScriptedJudge({"pairwise_preference": {"winner": "1", "reason": "r"}})
    metric = PairwisePreferenceMetric(repeats=2)
    sample = Sample("Q?", "alpha", answer_b="beta")
    cache = str(tmp_path / "judge.sqlite")
    evaluate([sample], [metric], judge=judge, cache=cache)
    evaluate([sample], [metric], judge=judge, cache=cache)
    assert len(judge.requests) == 4
    assert len(JudgeCache(cache)) == 4


def test_read_only_uses_hits_and_writes_nothing(server, tmp_path):
    path = str(tmp_path / "judge.sqlite")
    run(server, path)
    entries = len(JudgeCache(path))
    chats = server.count("chat")
    results = run(server, path, cache_mode="read_only")
    assert server.count("chat") == chats
    extra = Sample("Where is Rome?", "Rome is in Italy.", ("Rome is in Italy.",), id="d")
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
    evaluate([extra], ["groundedness"], judge=judge, cache=path, cache_mode="read_only")
    assert server.count("chat") == chats + 2
    assert len(JudgeCache(path)) == entries
    assert results.manifest["cache"]["mode"] == "read_only"


def test_refresh_calls_again_and_overwrites(server, tmp_path):
    path = str(tmp_path / "judge.sqlite")
    run(server, path)
    entries = len(JudgeCache(path))
    chats = server.count("chat")
    run(server, path, cache_mode="refresh")
    assert server.count("chat") == 2 * chats
    assert len(JudgeCache(path)) == entries


def test_without_a_cache_every_run_calls(server):
    run(server, None)
    chats = server.count("chat")
    run(server, None)
    assert server.count("chat") == 2 * chats


def test_a_cache_object_refuses_a_conflicting_mode(tmp_path):
    with (
        JudgeCache(tmp_path / "c.sqlite", "read_only") as cache,
        pytest.raises(InvalidInputError, match="conflicts"),
    ):
        evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), cache=cache, cache_mode="refresh")
    with pytest.raises(InvalidInputError, match="mode"):
        JudgeCache(tmp_path / "d.sqlite", "write_only")  # type: ignore[arg-type]


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path):
    rule = RuleJudge()
    state = {"calls": 0, "fail_at": 7}

    def flaky(request):
        state["calls"] += 1
        if state["calls"] == state["fail_at"]:
            raise RuntimeError("the process was killed")
        return rule.respond(request)

    samples = [
        Sample(
            f"Where is city {i}?",
            f"City {i} is in France. It is old.",
            (f"City {i} is in France.",),
        )
        for i in range(6)
    ]
    cache = str(tmp_path / "judge.sqlite")
    judge = as_judge(flaky, name="resumable", takes="request", limits=Limits(max_concurrency=1))
    with pytest.raises(Exception, match="killed"):
        evaluate(samples, ["groundedness"], judge=judge, cache=cache, on_error="raise")
    # The six calls before the crash are stored (calls already started when it happened may
    # finish and be stored too, before the run is cancelled).
    finished = len(JudgeCache(cache))
    assert finished >= 6

    state.update(calls=0, fail_at=-1)
    resumed = evaluate(samples, ["groundedness"], judge=judge, cache=cache)
    assert state["calls"] == 2 * 6 - finished  # nothing finished is asked again
    fresh = evaluate(samples, ["groundedness"], judge=rule)
    assert resumed.values("groundedness") == fresh.values("groundedness") == [0.5] * 6


def test_a_cached_answer_that_no_longer_validates_is_asked_again(tmp_path):
    path = tmp_path / "judge.sqlite"
    answers = {
        "claims": {"claims": ["c"]},
        "groundedness_verdicts": {"verdicts": [{"id": 1, "verdict": 1, "reason": "r"}]},
    }
    judge = ScriptedJudge(answers)
    sample = Sample("Q?", "A.", ("ctx",))
    evaluate([sample], ["groundedness"], judge=judge, cache=str(path))
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT key, value FROM calls").fetchall()
        for key, value in rows:
            stored = json.loads(value)
            stored["parsed"] = {"unexpected": True}
            db.execute("UPDATE calls SET value = ? WHERE key = ?", (json.dumps(stored), key))
    again = evaluate([sample], ["groundedness"], judge=judge, cache=str(path))
    assert again.values("groundedness") == [1.0]
    assert len(judge.requests) == 4


def test_pending_writes_are_visible_and_write_errors_surface(tmp_path):
    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    cache.put("k1", "chat", {"parsed": {"a": 1}})
    assert cache.get("k1") == {"parsed": {"a": 1}}
    cache.flush()
    assert len(cache) == 1 and cache.get("k1") == {"parsed": {"a": 1}}
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE calls")
    cache.put("k2", "chat", {"parsed": {"b": 2}})
    with pytest.raises(OSError, match="could not be written"):
        cache.flush()
    with pytest.raises(OSError, match="could not be written"):
        cache.put("k3", "chat", {})


def test_writes_are_gathered_and_flush_and_close_do_not_wait_for_more(tmp_path):
    path = tmp_path / "judge.sqlite"
    cache = JudgeCache(path)
    cache.WRITE_DELAY_S = 30.0  # gathering would outlast the test: flush and close cut it short
    started = time.monotonic()
    for i in range(3):
        cache.put(f"k{i}", "chat", {"parsed": {"i": i}})
    cache.flush()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 3
    cache.put("k3", "chat", {"parsed": {"i": 3}})
    cache.close()
    assert time.monotonic() - started < 10
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 4


def _corrupt(path, kind, value):
    with sqlite3.connect(path) as conn:
        keys = [k for (k,) in conn.execute("SELECT key FROM calls WHERE kind = ?", (kind,))]
        conn.execute("UPDATE calls SET value = ? WHERE key = ?", (value, keys[0]))
    return keys[0]


@pytest.mark.parametrize(
    ("kind", "damage"),
    [
        ("chat", "{not json"),
        ("chat", json.dumps({"text": None})),  # JSON, but no answer in it
        ("embedding", "\x00\x01binary"),
        ("embedding", json.dumps({"vector": ["a", None]})),
    ],
)
def test_a_damaged_row_is_a_miss_judged_again_and_overwritten(server, tmp_path, kind, damage):
    cache = str(tmp_path / "judge.sqlite")
    first = run(server, cache)
    key = _corrupt(cache, kind, damage)
    made = len(server.requests)
    second = run(server, cache)
    assert values(second) == values(first)
    assert len(server.requests) == made + 1  # only the damaged entry is asked again
    with sqlite3.connect(cache) as conn:
        (stored,) = conn.execute("SELECT value FROM calls WHERE key = ?", (key,)).fetchone()
    json.loads(stored)  # overwritten with a good answer
    run(server, cache)
    assert len(server.requests) == made + 1  # and from then on served from the cache


def test_a_file_that_is_not_a_database_is_an_error_naming_it(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("these are my notes, not a database\n" * 200)
    with pytest.raises(InvalidInputError) as caught:
        evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), cache=str(path))
    message = str(caught.value)
    assert str(path) in message and "not a judge cache" in message and "cache=" in message
    assert path.read_text().startswith("these are my notes")  # left untouched


def test_another_applications_database_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "app.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    with pytest.raises(InvalidInputError, match=r"app\.sqlite.*tables \['users'\]"):
        evaluate(SAMPLES, ["groundedness"], judge=RuleJudge(), cache=str(path))
    with sqlite3.connect(path) as conn:
        tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    assert tables == ["users"]


def test_a_calls_table_of_another_shape_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE calls (id INTEGER, who TEXT)")
    with pytest.raises(InvalidInputError, match=r"other\.sqlite.*columns"):
        JudgeCache(str(path))


class Flaky:
    """Answers the rubric for every question but those in ``broken`` (unusable text there)."""

    def __init__(self, broken):
        self.name = "flaky"
        self.broken = set(broken)
        self.calls = 0

    async def complete(self, request):
        from ragmeter.judges import JudgeResponse

        self.calls += 1
        prompt = request.first_user_message()
        # The sample's question is fenced as data: <data:question>, the text, </data:question>.
        if any(f"<data:question>\n{q}\n</data:question>" in prompt for q in self.broken):
            return JudgeResponse(text=f"no idea about this one ({self.calls})")
        return JudgeResponse(text='{"value": 1, "reason": "fine"}')


def _rubric_run(judge, cache, **options):
    from ragmeter.judges import RubricMetric

    rating = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1])
    samples = [Sample(q, id=q) for q in ("one", "two", "three", "four")]
    return evaluate(samples, [rating], judge=judge, cache=cache, max_parse_retries=1, **options)


def test_recorded_failures_are_replayed_with_retry_errors_false(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    first = _rubric_run(Flaky({"two", "four"}), cache)
    failed = {r.sample_id: r.score.message for r in first.rows if r.status == "error"}
    assert sorted(failed) == ["four", "two"]
    with sqlite3.connect(cache) as conn:
        stored = [json.loads(v) for (v,) in conn.execute("SELECT value FROM calls")]
    answers = [a for v in stored if "failure" in v for a in v["failure"]["answers"]]
    assert any(a.startswith("no idea about this one") for a in answers)  # raw answers kept

    judge = Flaky(set())  # would answer every sample now
    replay = _rubric_run(judge, cache, retry_errors=False)
    assert judge.calls == 0
    assert {r.sample_id: r.score.status for r in replay.rows} == {
        "one": "ok",
        "two": "error",
        "three": "ok",
        "four": "error",
    }
    assert all("replayed" in r.score.message for r in replay.rows if r.status == "error")
    assert replay.cache_summary()["replayed_failures"] == 2
    assert "2 rows replay a failure" in repr(replay)


def test_the_summary_says_which_rows_were_not_served_from_the_cache_and_why(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    _rubric_run(Flaky({"two", "four"}), cache)
    judge = Flaky(set())
    rerun = _rubric_run(judge, cache)  # retry_errors=True: the failed rows are judged again
    assert judge.calls == 2 and [r.status for r in rerun.rows] == ["ok"] * 4
    summary = rerun.cache_summary()
    assert summary == {
        "mode": "read_write",
        "rows": 4,
        "without_call": 2,
        "called": 2,
        "called_after_recorded_failure": 2,
        "called_not_in_cache": 0,
        "replayed_failures": 0,
    }
    assert "2 of 4 rows needed no call" in repr(rerun)
    assert "2 had failed in an earlier run" in repr(rerun)
    judge = Flaky(set())
    _rubric_run(judge, cache)
    assert judge.calls == 0  # the failures were overwritten by the answers
