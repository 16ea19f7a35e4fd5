"""Credentials never show: not in reprs, manifests, rows, exports, exceptions or any log line."""

from __future__ import annotations

import base64
import json
import logging
import urllib.parse

import pytest
from raw_http import RawServer, completion, http_response

from ragmeter import InvalidInputError, JudgeTransportError
from ragmeter.judges import (
    OpenAICompatibleJudge,
    RetryPolicy,
    RubricMetric,
    Sample,
    evaluate,
)

# A base64-like gateway token: '+', '/' and '=' stopped the old redaction pattern.
TOKEN = "gw-Zx81+Qm9vKe/Tr4sWq=Lp0wNd7YhKe3Fv"
PIECES = [piece for piece in TOKEN.replace("+", " ").replace("/", " ").replace("=", " ").split()]
RATING = RubricMetric("rating", "Rate the $question answer.", allowed_values=[0, 1])


def leaked(text: str, secret: str = TOKEN) -> list[str]:
    """The parts of ``secret`` (8 characters or more) that occur in ``text``."""
    found = [secret] if secret in text else []
    found += [secret[i : i + 8] for i in range(len(secret) - 7) if secret[i : i + 8] in text]
    return found


def echo_key_server(status: int = 400):
    """Answers every request with an error that echoes the Authorization header three ways."""

    def answer(request, index):
        header = request.headers.get("authorization", "")
        key = header.split(" ", 1)[-1]
        message = (
            f"invalid key {key}; as JSON {json.dumps(key)[1:-1].replace('/', chr(92) + '/')}; "
            f"url-encoded {urllib.parse.quote(key, safe='')}; first part {key[:12]}"
        )
        return [(http_response({"error": {"message": message}}, status, {"X-Echo": key}), 0.0)]

    return answer


@pytest.mark.parametrize("lean", [True, False], ids=["lean-transport", "httpx-transport"])
def test_a_key_read_from_a_file_loses_its_newline_and_never_leaks(tmp_path, caplog, lean):
    key_file = tmp_path / "key.txt"
    key_file.write_text(TOKEN + "\n")
    caplog.set_level(logging.DEBUG)  # every library's debug log, httpcore's included
    with RawServer(echo_key_server()) as server:
        judge = OpenAICompatibleJudge(
            base_url=server.url(),
            model="m",
            api_key=key_file.read_text(),
            lean_transport=lean,
            retry_policy=RetryPolicy(max_retries=0),
        )
        results = evaluate([Sample("first")], [RATING], judge=judge)
        sent = server.requests[0].headers["authorization"]
    assert sent == f"Bearer {TOKEN}"  # stripped, sent whole
    score = results.rows[0].score
    assert score.status == "error" and "invalid key ***" in score.message
    places = {
        "row": score.message,
        "jsonl": results.to_jsonl(),
        "report": json.dumps(results.to_report_dict()),
        "repr": repr(judge),
        "logs": caplog.text,
    }
    assert {where: leaked(text) for where, text in places.items() if leaked(text)} == {}


def test_a_fatal_error_raised_to_the_caller_holds_no_part_of_the_key(caplog):
    caplog.set_level(logging.DEBUG)
    with RawServer(echo_key_server(status=401)) as server:
        judge = OpenAICompatibleJudge(base_url=server.url(), model="m", api_key=TOKEN)
        with pytest.raises(JudgeTransportError) as caught:
            evaluate([Sample("first")], [RATING], judge=judge)
    assert caught.value.fatal
    for text in (str(caught.value), caught.value.body, caplog.text):
        assert leaked(text) == []


@pytest.mark.parametrize("bad", ["sk-abc def", "sk-abc\tdef", "sk-abc\x00def", "sk-abcdéf"])
def test_a_key_with_whitespace_or_control_characters_inside_is_refused(bad):
    with pytest.raises(InvalidInputError, match="api_key holds") as caught:
        OpenAICompatibleJudge(base_url="http://127.0.0.1:9/v1", model="m", api_key=bad)
    assert "abc" not in str(caught.value)


def test_credentials_in_base_url_are_sent_as_basic_auth_and_never_shown(caplog):
    caplog.set_level(logging.DEBUG)
    password = "sk-pass-Q7w+e/r=t9y8u7i6"

    def answer(request, index):
        return [(http_response(completion(json.dumps({"value": 1, "reason": "ok"}))), 0.0)]

    with RawServer(answer) as server:
        port = server.port
        quoted = urllib.parse.quote(password, safe="")
        url = f"http://gateway-user:{quoted}@127.0.0.1:{port}/v1"
        judge = OpenAICompatibleJudge(base_url=url, model="m")
        results = evaluate([Sample("first")], [RATING], judge=judge)
        header = server.requests[0].headers["authorization"]
    expected = base64.b64encode(f"gateway-user:{password}".encode()).decode()
    assert header == f"Basic {expected}"
    assert results.rows[0].value == 1.0
    assert judge.base_url == f"http://127.0.0.1:{port}/v1"
    places = {
        "repr": repr(judge),
        "identity": json.dumps(judge.identity),
        "manifest": json.dumps(results.to_report_dict()["manifest"]),
        "logs": caplog.text,
    }
    assert {w: leaked(t, password) for w, t in places.items() if leaked(t, password)} == {}
    assert {w for w, t in places.items() if quoted in t or expected in t} == set()
