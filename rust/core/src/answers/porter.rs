//! The Porter stemmer as NLTK implements it in its default mode (`NLTK_EXTENSIONS`), which is
//! what `rouge-score` uses (`nltk.stem.porter.PorterStemmer()`): Porter (1980), "An algorithm
//! for suffix stripping", Program 14(3), with Martin Porter's later changes and NLTK's (a table
//! of irregular forms, `-ies`/`-ied` on four-letter words, `y -> i` only after a consonant,
//! `-alli` first, `-fulli`, `-logi`, words of one or two letters kept).
//!
//! Ported rule by rule from `nltk/stem/porter.py` (NLTK 3.10.4), including the order in which the
//! rules of a step are tried and the rule that a matching suffix whose condition fails ends the
//! step. The words `rouge-score` stems are lower-case ASCII letters and digits; the stemmer
//! works on bytes and is exact for any ASCII word (a digit is a consonant, as in NLTK). The
//! tests compare it with NLTK itself.

/// NLTK's table of irregular forms: a word equal to the first is stemmed to the second.
const IRREGULAR: &[(&str, &str)] = &[
    ("sky", "sky"),
    ("skies", "sky"),
    ("dying", "die"),
    ("lying", "lie"),
    ("tying", "tie"),
    ("news", "news"),
    ("innings", "inning"),
    ("inning", "inning"),
    ("outings", "outing"),
    ("outing", "outing"),
    ("cannings", "canning"),
    ("canning", "canning"),
    ("howe", "howe"),
    ("proceed", "proceed"),
    ("exceed", "exceed"),
    ("succeed", "succeed"),
];

fn is_vowel(byte: u8) -> bool {
    matches!(byte, b'a' | b'e' | b'i' | b'o' | b'u')
}

/// `word[i]` is a consonant: not a vowel, and a `y` only when the letter before it is not a
/// consonant (a run of `y`s alternates; a `y` that starts the word is a consonant).
fn is_consonant(word: &[u8], mut i: usize) -> bool {
    if is_vowel(word[i]) {
        return false;
    }
    if word[i] != b'y' {
        return true;
    }
    let mut negate = false;
    while i > 0 && word[i] == b'y' {
        negate = !negate;
        i -= 1;
    }
    is_vowel(word[i]) == negate
}

/// Porter's measure m of `stem`: the number of vowel-consonant transitions.
fn measure(stem: &[u8]) -> usize {
    let mut count = 0;
    let mut previous_consonant: Option<bool> = None;
    for (i, &byte) in stem.iter().enumerate() {
        let consonant = match byte {
            b'a' | b'e' | b'i' | b'o' | b'u' => false,
            b'y' => i == 0 || !previous_consonant.unwrap_or(true),
            _ => true,
        };
        if consonant && previous_consonant == Some(false) {
            count += 1;
        }
        previous_consonant = Some(consonant);
    }
    count
}

fn contains_vowel(stem: &[u8]) -> bool {
    (0..stem.len()).any(|i| !is_consonant(stem, i))
}

/// Condition *d: the word ends with a double consonant.
fn ends_double_consonant(word: &[u8]) -> bool {
    let n = word.len();
    n >= 2 && word[n - 1] == word[n - 2] && is_consonant(word, n - 1)
}

/// Condition *o: the word ends consonant-vowel-consonant, the last not w, x or y; NLTK also
/// counts a two-letter vowel-consonant word.
fn ends_cvc(word: &[u8]) -> bool {
    let n = word.len();
    (n >= 3
        && is_consonant(word, n - 3)
        && !is_consonant(word, n - 2)
        && is_consonant(word, n - 1)
        && !matches!(word[n - 1], b'w' | b'x' | b'y'))
        || (n == 2 && !is_consonant(word, 0) && is_consonant(word, 1))
}

/// When a rule applies, given the stem left after removing its suffix and the word the step
/// started from.
#[derive(Clone, Copy)]
enum Condition {
    Always,
    /// m(stem) > 0
    PositiveMeasure,
    /// m(stem) > 1
    MeasureAbove1,
    /// m(stem) > 1 and the stem ends with s or t (step 4's -ion)
    Ion,
    /// m(word without its last three letters) > 0 (NLTK's -logi, whose l stays with the stem)
    Logi,
    /// y preceded by a consonant, the stem longer than one letter (NLTK's step 1c)
    ConsonantBeforeY,
}

impl Condition {
    fn holds(self, stem: &[u8], word: &[u8]) -> bool {
        match self {
            Condition::Always => true,
            Condition::PositiveMeasure => measure(stem) > 0,
            Condition::MeasureAbove1 => measure(stem) > 1,
            Condition::Ion => measure(stem) > 1 && matches!(stem.last(), Some(b's' | b't')),
            Condition::Logi => measure(&word[..word.len() - 3]) > 0,
            Condition::ConsonantBeforeY => stem.len() > 1 && is_consonant(stem, stem.len() - 1),
        }
    }
}

type Rule = (&'static [u8], &'static [u8], Condition);

/// NLTK's `_apply_rule_list` without its `*d` rule: the first rule whose suffix ends the word
/// decides; its replacement is made if its condition holds, and no later rule is tried either
/// way.
fn apply_rules(word: &mut Vec<u8>, rules: &[Rule]) {
    for &(suffix, replacement, condition) in rules {
        if word.ends_with(suffix) {
            let stem_len = word.len() - suffix.len();
            if condition.holds(&word[..stem_len], word) {
                word.truncate(stem_len);
                word.extend_from_slice(replacement);
            }
            return;
        }
    }
}

fn replace_suffix(word: &mut Vec<u8>, suffix_len: usize, replacement: &[u8]) {
    word.truncate(word.len() - suffix_len);
    word.extend_from_slice(replacement);
}

fn step1a(word: &mut Vec<u8>) {
    if word.ends_with(b"ies") && word.len() == 4 {
        replace_suffix(word, 3, b"ie");
        return;
    }
    use Condition::Always;
    apply_rules(
        word,
        &[
            (b"sses", b"ss", Always),
            (b"ies", b"i", Always),
            (b"ss", b"ss", Always),
            (b"s", b"", Always),
        ],
    );
}

fn step1b(word: &mut Vec<u8>) {
    if word.ends_with(b"ied") {
        let replacement: &[u8] = if word.len() == 4 { b"ie" } else { b"i" };
        replace_suffix(word, 3, replacement);
        return;
    }
    if word.ends_with(b"eed") {
        if measure(&word[..word.len() - 3]) > 0 {
            replace_suffix(word, 3, b"ee");
        }
        return;
    }
    let removed = [&b"ed"[..], &b"ing"[..]].into_iter().find(|suffix| {
        word.ends_with(suffix) && contains_vowel(&word[..word.len() - suffix.len()])
    });
    let Some(suffix) = removed else {
        return;
    };
    word.truncate(word.len() - suffix.len());
    // The rules after a successful -ed or -ing, on the intermediate stem.
    for (suffix, replacement) in [(&b"at"[..], &b"ate"[..]), (b"bl", b"ble"), (b"iz", b"ize")] {
        if word.ends_with(suffix) {
            replace_suffix(word, suffix.len(), replacement);
            return;
        }
    }
    if ends_double_consonant(word) {
        // (*d and not (*L or *S or *Z)) -> single letter; else nothing, and no later rule.
        if !matches!(word.last(), Some(b'l' | b's' | b'z')) {
            word.pop();
        }
        return;
    }
    if measure(word) == 1 && ends_cvc(word) {
        word.push(b'e');
    }
}

fn step1c(word: &mut Vec<u8>) {
    apply_rules(word, &[(b"y", b"i", Condition::ConsonantBeforeY)]);
}

fn step2(word: &mut Vec<u8>) {
    if word.ends_with(b"alli") && measure(&word[..word.len() - 4]) > 0 {
        replace_suffix(word, 4, b"al");
        step2(word);
        return;
    }
    use Condition::{Logi, PositiveMeasure as M};
    apply_rules(
        word,
        &[
            (b"ational", b"ate", M),
            (b"tional", b"tion", M),
            (b"enci", b"ence", M),
            (b"anci", b"ance", M),
            (b"izer", b"ize", M),
            (b"bli", b"ble", M),
            (b"alli", b"al", M),
            (b"entli", b"ent", M),
            (b"eli", b"e", M),
            (b"ousli", b"ous", M),
            (b"ization", b"ize", M),
            (b"ation", b"ate", M),
            (b"ator", b"ate", M),
            (b"alism", b"al", M),
            (b"iveness", b"ive", M),
            (b"fulness", b"ful", M),
            (b"ousness", b"ous", M),
            (b"aliti", b"al", M),
            (b"iviti", b"ive", M),
            (b"biliti", b"ble", M),
            (b"fulli", b"ful", M),
            (b"logi", b"log", Logi),
        ],
    );
}

fn step3(word: &mut Vec<u8>) {
    use Condition::PositiveMeasure as M;
    apply_rules(
        word,
        &[
            (b"icate", b"ic", M),
            (b"ative", b"", M),
            (b"alize", b"al", M),
            (b"iciti", b"ic", M),
            (b"ical", b"ic", M),
            (b"ful", b"", M),
            (b"ness", b"", M),
        ],
    );
}

fn step4(word: &mut Vec<u8>) {
    use Condition::{Ion, MeasureAbove1 as M};
    apply_rules(
        word,
        &[
            (b"al", b"", M),
            (b"ance", b"", M),
            (b"ence", b"", M),
            (b"er", b"", M),
            (b"ic", b"", M),
            (b"able", b"", M),
            (b"ible", b"", M),
            (b"ant", b"", M),
            (b"ement", b"", M),
            (b"ment", b"", M),
            (b"ent", b"", M),
            (b"ion", b"", Ion),
            (b"ou", b"", M),
            (b"ism", b"", M),
            (b"ate", b"", M),
            (b"iti", b"", M),
            (b"ous", b"", M),
            (b"ive", b"", M),
            (b"ize", b"", M),
        ],
    );
}

fn step5a(word: &mut Vec<u8>) {
    if word.ends_with(b"e") {
        let stem = &word[..word.len() - 1];
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            word.pop();
        }
    }
}

fn step5b(word: &mut Vec<u8>) {
    if word.ends_with(b"ll") && measure(&word[..word.len() - 1]) > 1 {
        word.pop();
    }
}

/// The stem of `word` (lower-case ASCII) written into `out` (cleared first). A word with a
/// byte that is not lower-case ASCII is copied unchanged (rouge-score never stems one).
pub fn stem_into(word: &str, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(word.as_bytes());
    if !word
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        return;
    }
    if let Some(&(_, irregular)) = IRREGULAR.iter().find(|(form, _)| *form == word) {
        out.clear();
        out.extend_from_slice(irregular.as_bytes());
        return;
    }
    if word.len() <= 2 {
        return;
    }
    step1a(out);
    step1b(out);
    step1c(out);
    step2(out);
    step3(out);
    step4(out);
    step5a(out);
    step5b(out);
}

/// The stem of `word` as a new string.
pub fn stem(word: &str) -> String {
    let mut out = Vec::with_capacity(word.len());
    stem_into(word, &mut out);
    // Only ASCII bytes were removed or added: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_examples() {
        // Porter (1980), the examples of each step (NLTK agrees on these).
        for (word, expected) in [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("ties", "tie"),
            ("caress", "caress"),
            ("cats", "cat"),
            ("feed", "feed"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("bled", "bled"),
            ("motoring", "motor"),
            ("sing", "sing"),
            ("conflated", "conflat"),
            ("troubled", "troubl"),
            ("sized", "size"),
            ("hopping", "hop"),
            ("tanned", "tan"),
            ("falling", "fall"),
            ("hissing", "hiss"),
            ("fizzed", "fizz"),
            ("failing", "fail"),
            ("filing", "file"),
            ("happy", "happi"),
            ("sky", "sky"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("rational", "ration"),
            ("generalization", "gener"),
            ("electrical", "electr"),
            ("hopeful", "hope"),
            ("goodness", "good"),
            ("revival", "reviv"),
            ("allowance", "allow"),
            ("adoption", "adopt"),
            ("controlling", "control"),
            ("rolling", "roll"),
            ("dying", "die"),
            ("flies", "fli"),
            ("dies", "die"),
            ("spied", "spi"),
            ("died", "die"),
            ("enjoy", "enjoy"),
            ("geology", "geolog"),
            ("12th", "12th"),
            ("at", "at"),
        ] {
            assert_eq!(stem(word), expected, "{word}");
        }
    }

    #[test]
    fn measure_matches_the_definition() {
        // m=0: tr, ee, tree, y, by; m=1: trouble, oats, trees, ivy; m=2: troubles, private.
        for (word, m) in [
            ("tr", 0),
            ("ee", 0),
            ("tree", 0),
            ("y", 0),
            ("by", 0),
            ("trouble", 1),
            ("oats", 1),
            ("trees", 1),
            ("ivy", 1),
            ("troubles", 2),
            ("private", 2),
            ("oaten", 2),
            ("orrery", 2),
        ] {
            assert_eq!(measure(word.as_bytes()), m, "{word}");
        }
        // The one-pass measure and the position-by-position consonant test agree.
        let naive = |w: &[u8]| {
            let cv: Vec<bool> = (0..w.len()).map(|i| is_consonant(w, i)).collect();
            cv.windows(2).filter(|p| !p[0] && p[1]).count()
        };
        for word in [
            "syzygy", "yyyay", "ayyy", "toy", "yellowy", "rhythm", "xyzzy",
        ] {
            assert_eq!(measure(word.as_bytes()), naive(word.as_bytes()), "{word}");
        }
    }

    #[test]
    fn other_words_are_left_alone() {
        assert_eq!(stem("Running"), "Running");
        assert_eq!(stem("café"), "café");
        assert_eq!(stem(""), "");
    }
}
