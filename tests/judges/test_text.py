"""The dependency-free sentence splitter."""

import pytest

from ragmeter.judges.text import content_words, split_sentences


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            "Paris is the capital of France. It has 2.1 million people! Is it big? Yes.",
            ["Paris is the capital of France.", "It has 2.1 million people!", "Is it big?", "Yes."],
        ),
        (
            "Dr. Smith met J. R. R. Tolkien. They talked.",
            ["Dr. Smith met J. R. R. Tolkien.", "They talked."],
        ),
        ("Line one\nLine two.", ["Line one", "Line two."]),
        ('He said "stop." Then he left.', ['He said "stop."', "Then he left."]),
        ("It costs 3.5 dollars, e.g. cheap. Fine.", ["It costs 3.5 dollars, e.g. cheap.", "Fine."]),
        (
            "東京は日本の首都です。人口は多い！本当？",
            ["東京は日本の首都です。", "人口は多い！", "本当？"],
        ),
        ("", []),
        ("  \n \n", []),
    ],
)
def test_split_sentences(text, sentences):
    assert split_sentences(text) == sentences


def test_content_words_drop_stopwords_and_case():
    assert content_words("Where is THE Eiffel Tower?") == {"eiffel", "tower"}
