"""The report's nugget section (issue 45 item 6): saved nugget banks and assignments, read
through the file door, shown per topic with every nugget's importance and each answer's label
and reason; a failed judgement shown as an error, never a label; the bank's hash and the blind
record; hostile nugget text shown as text; a topic drawn only when opened.

Oracles: the saved files themselves (the page shows what they hold, read back with
``NuggetAssignments.read``), nuggetizer's own scoring code (tests/nuggets/peers, commit
d00dc3e) for the scores the section's summary shows, and the published formulas in fractions.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from browser import browser_or_skip, console_errors, requested_urls, screenshot
from nuggets.peers.nuggetizer_metrics import calculate_nugget_scores
from nuggets.test_cli import _files
from test_html_report import REVERSED

from ragmeter import InvalidInputError, report
from ragmeter.cli import main
from ragmeter.nuggets import (
    AnswerAssignment,
    Judgement,
    Nugget,
    NuggetAssignments,
    NuggetBank,
    TopicNuggets,
)

RLO = "\u202e"
HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
CODES = {"support": "S", "partial_support": "P", "not_support": "N"}


def _assignments(blind: bool = True) -> NuggetAssignments:
    """Two runs on two topics: one answer labelled with reasons, one whose judgement failed,
    one judged twice, hostile and bidi nugget text, a nugget without importance."""
    bank = NuggetBank(
        (
            TopicNuggets(
                "t1",
                "who wrote <b>hamlet</b>?",
                (
                    Nugget("Shakespeare wrote Hamlet", "vital"),
                    Nugget(HOSTILE, "okay"),
                    Nugget(f"{RLO}written around 1600", "okay"),
                ),
            ),
            TopicNuggets("t2", "boiling point of water", (Nugget("100 degrees C", "vital"),)),
        ),
        {"source": "ragmeter", "pooled_runs": ["bm25", "dense"]},
    )
    answers = (
        AnswerAssignment(
            "bm25",
            "t1",
            (
                Judgement(
                    ("support", "partial_support", "not_support"),
                    reasons=("names Shakespeare", f"half of it {HOSTILE}", "no date given"),
                ),
            ),
        ),
        AnswerAssignment(
            "dense",
            "t1",
            (Judgement((None, None, None), "error", "judge_output_invalid", "reply <not> JSON"),),
        ),
        AnswerAssignment(
            "bm25", "t2", (Judgement(("support",)), Judgement(("not_support",), reasons=("no",)))
        ),
        AnswerAssignment("dense", "t2", (Judgement(("partial_support",), reasons=("vague",)),)),
    )
    return NuggetAssignments(bank, answers, 3, "judge", {"judge": {"name": "scripted"}}, {}, blind)


def _data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="ragmeter-data">(.*?)</script>', page)
    assert found
    return json.loads(found.group(1))


def test_the_saved_assignments_are_the_section_data_and_its_scores_the_formulas(tmp_path):
    assignments = _assignments()
    path = tmp_path / "assignments.json"
    assignments.write(path)
    page = report(path)
    block = _data(page)["nuggets"]["0"]
    read = NuggetAssignments.read(path)
    assert block["record"]["content_hash"] == read.bank.content_hash
    assert read.bank.content_hash in page and block["record"]["blind"] is True
    assert block["record"]["n_failed"] == 1 and block["runs"] == ["bm25", "dense"]
    for topic in block["topics"]:
        bank_topic = read.bank[topic["id"]]
        assert topic["nuggets"] == [[n.text, n.importance] for n in bank_topic.nuggets]
        shown = {(block["runs"][a[0]], a[1]): a for a in topic["answers"]}
        expected = [a for a in read.answers if a.topic_id == topic["id"]]
        assert len(shown) == sum(len(a.judgements) for a in expected)
        for answer in expected:
            for repeat, judgement in enumerate(answer.judgements):
                row = shown[(answer.run_id, repeat)]
                assert row[3] == judgement.status
                if judgement.status == "error":  # no label, the reason kept
                    assert row[2] is None
                    assert (row[4], row[5]) == (judgement.reason_code, judgement.message)
                else:
                    assert row[2] == "".join(CODES[str(lb)] for lb in judgement.labels)
                    assert [block["reasons"][i] for i in row[6]] == list(judgement.reasons)
    # The section's summary: nugget_all of bm25 over t1 (1 + 1/2 + 0)/3 and t2 (mean of the
    # repeats 1 and 0): nuggetizer's own code on each answer, then the mean over topics.
    theirs = [
        calculate_nugget_scores(
            "t1",
            [
                {"importance": n.importance, "assignment": lb}
                for n, lb in zip(
                    read.bank["t1"].nuggets, read.answers[0].judgements[0].labels, strict=True
                )
            ],
        ).all_score,
        (1.0 + 0.0) / 2,
    ]
    assert theirs[0] == float(Fraction(1, 2))
    mean = sum(theirs) / 2
    assert f'data-system="bm25" data-metric="nugget_all" data-mean="{mean!r}"' in page
    # dense: t1 failed (no value, not 0), t2 partial support: 1/2 over one topic
    assert 'data-system="dense" data-metric="nugget_all" data-mean="0.5"' in page


def test_a_bank_alone_shows_its_nuggets_and_hash(tmp_path):
    bank = _assignments().bank
    bank.write(tmp_path / "bank.json")
    page = report(tmp_path / "bank.json")
    block = _data(page)["nuggets"]["0"]
    assert block["runs"] == [] and "assigned_by" not in block["record"]
    assert [t["id"] for t in block["topics"]] == ["t1", "t2"]
    assert bank.content_hash in page and "pooled runs" in page
    # the objects themselves, named or not, as the files
    assert _data(report(("the bank", bank)))["nuggets"]["0"] == block
    page = report(_assignments())
    assert _data(page)["nuggets"]["0"]["record"]["content_hash"] == bank.content_hash
    assert "<h2><bdi>Nugget scores of 2 systems on nugget_all, " in page
    assert f"<h2><bdi>Nugget bank {bank.content_hash[:12]}</bdi></h2>" in report(bank)


def test_edited_or_damaged_nugget_files_are_refused(tmp_path):
    path = tmp_path / "assignments.json"
    _assignments().write(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["answers"][0]["judgements"][0]["labels"][2] = "support"  # a label changed by hand
    path.write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"assignments\.json"):
        report(path)


def test_the_command_reports_what_nuggets_assign_wrote(tmp_path, capsys):
    _files(tmp_path)
    bank, assigned = tmp_path / "bank.json", tmp_path / "assignments.json"
    common = ["--judge", "rule"]
    create = [
        "nuggets", "create", str(tmp_path / "bm25.run"), str(tmp_path / "dense.run"),
        "--qrels", str(tmp_path / "qrels.txt"), "--topics", str(tmp_path / "topics.jsonl"),
        "--corpus", str(tmp_path / "corpus.jsonl"), "-o", str(bank), *common,
    ]  # fmt: skip
    assert main(create) == 0
    answers = str(tmp_path / "answers.jsonl")
    assert (
        main(["nuggets", "assign", answers, "--bank", str(bank), "-o", str(assigned), *common]) == 0
    )
    out = tmp_path / "report.html"
    assert main(["report", str(assigned), str(bank), "-o", str(out)]) == 0, capsys.readouterr()
    data = _data(out.read_text(encoding="utf-8"))
    read = NuggetAssignments.read(assigned)
    block = data["nuggets"]["0"]
    assert block["record"]["blind"] is False and set(block["runs"]) == {"bm25", "dense"}
    labels = {(block["runs"][a[0]], t["id"]): a[2] for t in block["topics"] for a in t["answers"]}
    assert labels == {
        (a.run_id, a.topic_id): "".join(CODES[str(lb)] for lb in a.judgements[0].labels)
        for a in read.answers
    }
    assert data["nuggets"]["1"]["record"]["content_hash"] == read.bank.content_hash


# -- in a real browser ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def driver():
    browser = browser_or_skip()
    yield browser
    browser.quit()


def _open(driver, topic: int):
    details = driver.find_elements("css selector", "details[data-topic]")[topic]
    driver.execute_script("arguments[0].open = true; arguments[0].scrollIntoView();", details)
    return details


def test_a_topic_shows_its_nuggets_labels_reasons_and_errors(tmp_path, driver):
    _assignments().write(tmp_path / "assignments.json")
    report(tmp_path / "assignments.json", output=tmp_path / "report.html")
    driver.get((tmp_path / "report.html").as_uri())
    assert requested_urls(driver) == [(tmp_path / "report.html").as_uri()]
    record = driver.find_element("css selector", "[data-role=nugget-record]").text
    assert _assignments().bank.content_hash in record
    assert "yes: recorded that the bank and the prompts were kept" in record
    # Nothing drawn before a topic is opened.
    assert driver.find_elements("css selector", "[data-role=nugget-labels]") == []
    t1 = _open(driver, 0)
    rows = t1.find_elements("css selector", "[data-role=nuggets] tr")
    shown = [[c.text for c in r.find_elements("css selector", "td")] for r in rows[1:]]
    assert shown[0] == ["1", "Shakespeare wrote Hamlet", "vital"]
    assert shown[1] == ["2", HOSTILE, "okay"]  # markup shown as text
    assert shown[2][2] == "okay"
    table = t1.find_element("css selector", "[data-role=nugget-labels]")
    bm25, dense = table.find_elements("css selector", "tr[data-run]")
    assert [c.text for c in bm25.find_elements("css selector", "td.label")] == ["S", "P", "N"]
    # the failed judgement: an error with its reason across the nugget columns, no label
    assert dense.find_elements("css selector", "td.label") == []
    error = dense.find_element("css selector", "[data-role=no-label]")
    assert error.text == "error (judge_output_invalid): reply <not> JSON (no label)"
    assert error.get_attribute("colspan") == "3"
    # the reasons: one click away
    reasons = bm25.find_element("css selector", "details")
    assert not reasons.find_element("css selector", "ol").is_displayed()
    reasons.find_element("css selector", "summary").click()
    items = [li.text for li in reasons.find_elements("css selector", "li")]
    assert items[0] == "support · Shakespeare wrote Hamlet · names Shakespeare"
    assert items[1] == f"partial_support · {HOSTILE} · half of it {HOSTILE}"
    assert driver.execute_script("return window.pwned === undefined")
    assert len(driver.find_elements("css selector", "body script")) == 3  # data + 2 scripts
    assert driver.find_elements("css selector", "main img") == []
    # the nugget holding U+202E is isolated: the text after it is not reversed
    isolated = driver.execute_script(
        "var text = arguments[0];"
        "return Array.from(document.querySelectorAll('bdi')).filter(function (b) {"
        " return b.textContent === text; }).length",
        f"{RLO}written around 1600",
    )
    assert isolated == 2  # in the nuggets table and in the reasons list, each alone
    assert driver.execute_script(REVERSED) == [] and console_errors(driver) == []
    screenshot(driver, "report-nuggets-topic")
    t2 = _open(driver, 1)
    table = t2.find_element("css selector", "[data-role=nugget-labels]")
    repeats = [
        [c.text for c in r.find_elements("css selector", "td")][:4]
        for r in table.find_elements("css selector", "tr[data-run]")
    ]
    assert repeats == [
        ["bm25", "1", "ok", "S"],
        ["bm25", "2", "ok", "N"],
        ["dense", "1", "ok", "P"],
    ]
    screenshot(driver, "report-nuggets-repeats")


def test_many_runs_are_drawn_a_topic_at_a_time_and_paged(tmp_path, driver):
    runs, topics, nuggets = 230, 6, 20
    bank = NuggetBank(
        tuple(
            TopicNuggets(f"t{t}", f"q{t}", tuple(Nugget(f"fact {t}.{n}") for n in range(nuggets)))
            for t in range(topics)
        )
    )
    labels = ("support", "partial_support", "not_support")
    answers = tuple(
        AnswerAssignment(
            f"run{r:03d}",
            f"t{t}",
            (Judgement(tuple(labels[(r + t + n) % 3] for n in range(nuggets))),),
        )
        for r in range(runs)
        for t in range(topics)
    )
    NuggetAssignments(bank, answers).write(tmp_path / "a.json")
    report(tmp_path / "a.json", output=tmp_path / "report.html")
    driver.get((tmp_path / "report.html").as_uri())
    assert driver.find_elements("css selector", "td.label") == []
    t3 = _open(driver, 3)
    rows = t3.find_elements("css selector", "tr[data-run]")
    assert len(rows) == 200  # the first page
    assert len(driver.find_elements("css selector", "td.label")) == 200 * nuggets
    first = [c.text for c in rows[0].find_elements("css selector", "td.label")]
    assert first == [CODES[labels[(0 + 3 + n) % 3]] for n in range(nuggets)]
    t3.find_element("css selector", "[data-role=more]").click()
    assert len(t3.find_elements("css selector", "tr[data-run]")) == runs
    search = t3.find_element("css selector", "[data-role=run-filter]")
    search.send_keys("run22")
    shown = [r.get_attribute("data-run") for r in t3.find_elements("css selector", "tr[data-run]")]
    assert shown == [f"run22{i}" for i in range(10)]
    assert console_errors(driver) == []
