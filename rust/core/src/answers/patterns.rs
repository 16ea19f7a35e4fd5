//! Regular expressions over answers: gold answers given as patterns (CuratedTREC's, as FlashRAG
//! reads them) and the patterns of an answer that declines to answer.
//!
//! The dialect is the Rust `regex` crate's, which matches in time linear in the pattern and the
//! text (finite automata, no backtracking): a hostile pattern cannot make a call hang, and one
//! too large to compile (over `SIZE_LIMIT` bytes of program) is refused with an error. It reads
//! the patterns of Python's `re` that data sets use (literals, classes, `\d \w \s \b`, groups,
//! alternation, greedy and lazy repetition, `(?P<name>...)`, inline flags) and refuses
//! backreferences and look-around. Patterns match case-insensitively (Unicode simple case
//! folding), as FlashRAG's `re.IGNORECASE`.
//!
//! * `Search` (FlashRAG's `Sub_ExactMatch` on CuratedTREC): a match anywhere in the normalised
//!   answer, `re.search`; the pattern itself is not normalised.
//! * `FullMatch` (FlashRAG's `ExactMatch` on CuratedTREC): a match of the whole normalised
//!   answer, `re.fullmatch` (the pattern wrapped in `\A(?:...)\z` after it is parsed, so no
//!   flag or group of the pattern can escape the anchors).

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use regex_syntax::hir::{Hir, Look};

use super::rows::answer_rows;
use crate::batch::map_items;
use crate::normalize::{Normalization, normalized};
use crate::{CoreError, CoreResult};

/// The largest compiled program of one pattern, in bytes (the `regex` crate's `size_limit`).
pub const SIZE_LIMIT: usize = 1 << 20;

/// How a pattern must match the normalised answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchMode {
    /// Anywhere (`re.search`).
    Search,
    /// The whole answer (`re.fullmatch`).
    FullMatch,
}

fn describe(error: impl std::fmt::Display) -> String {
    format!(
        "not a valid pattern for ragmeter (Rust regex syntax: no backreferences or look-around): \
         {error}"
    )
}

/// `pattern` compiled to match as `mode` says, case-insensitively.
pub fn compile(pattern: &str, mode: MatchMode) -> Result<Regex, String> {
    match mode {
        MatchMode::Search => RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(SIZE_LIMIT)
            .build()
            .map_err(describe),
        MatchMode::FullMatch => {
            let hir = regex_syntax::ParserBuilder::new()
                .case_insensitive(true)
                .build()
                .parse(pattern)
                .map_err(describe)?;
            let anchored = Hir::concat(vec![Hir::look(Look::Start), hir, Hir::look(Look::End)]);
            RegexBuilder::new(&anchored.to_string())
                .size_limit(SIZE_LIMIT)
                .build()
                .map_err(describe)
        }
    }
}

/// 1.0 when a pattern of its row matches the normalised answer, for each answer. A pattern
/// that does not compile is an error naming its answer's position in `answers`
/// (`CoreError::InvalidQuery`) and the pattern's position in its row.
pub fn pattern_scores(
    reference_offsets: &[usize],
    patterns: &[&str],
    answers: &[&str],
    mode: MatchMode,
    how: Normalization,
) -> CoreResult<Vec<f64>> {
    let rows = answer_rows(
        "references",
        reference_offsets,
        patterns,
        answers.len(),
        false,
        "pattern",
    )?;
    let scores = map_items(answers, |buffer: &mut String, i, answer| {
        let answer = normalized(answer, how, buffer);
        for (j, pattern) in rows.row(i).iter().enumerate() {
            let regex = compile(pattern, mode)
                .map_err(|message| CoreError::query(i, format!("[{j}] {pattern:?}: {message}")))?;
            if regex.is_match(answer) {
                return Ok(1.0);
            }
        }
        Ok(0.0)
    });
    scores.into_iter().collect()
}

/// The patterns of an answer that declines to answer, compiled once for a whole call.
pub struct NoAnswerPatterns {
    set: RegexSet,
}

impl NoAnswerPatterns {
    /// Compiles `patterns` (case-insensitive, searched anywhere in the normalised answer).
    pub fn new(patterns: &[&str]) -> CoreResult<Self> {
        for (i, pattern) in patterns.iter().enumerate() {
            compile(pattern, MatchMode::Search).map_err(|message| {
                CoreError::argument("patterns", format!("patterns[{i}] {pattern:?}: {message}"))
            })?;
        }
        let set = RegexSetBuilder::new(patterns)
            .case_insensitive(true)
            .size_limit(SIZE_LIMIT.saturating_mul(patterns.len().max(1)))
            .build()
            .map_err(|e| CoreError::argument("patterns", describe(e)))?;
        Ok(NoAnswerPatterns { set })
    }

    /// Whether some pattern matches `text`.
    pub fn matches(&self, text: &str) -> bool {
        self.set.is_match(text)
    }
}

/// 1.0 for each answer whose normalised text a no-answer pattern matches, else 0.0.
pub fn no_answer_scores(
    answers: &[&str],
    patterns: &NoAnswerPatterns,
    how: Normalization,
) -> Vec<f64> {
    map_items(answers, |buffer: &mut String, _, answer| {
        f64::from(u8::from(patterns.matches(normalized(answer, how, buffer))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(patterns: &[&str], answer: &str, mode: MatchMode) -> f64 {
        pattern_scores(
            &[0, patterns.len()],
            patterns,
            &[answer],
            mode,
            Normalization::Squad,
        )
        .unwrap()[0]
    }

    #[test]
    fn search_and_full_match() {
        // CuratedTREC-style gold answers; the answer is normalised, the pattern is not.
        let miles = [r"\d+ (miles|mi)"];
        assert_eq!(
            scores(&miles, "About 238,900 Miles.", MatchMode::Search),
            1.0
        );
        assert_eq!(scores(&miles, "238900 miles", MatchMode::FullMatch), 1.0);
        assert_eq!(
            scores(&miles, "about 238900 miles", MatchMode::FullMatch),
            0.0
        );
        // Leftmost-first would stop at "a"; a full match needs the second alternative.
        assert_eq!(scores(&["a|ab"], "ab", MatchMode::FullMatch), 1.0);
        // A flag or group cannot escape the anchors.
        assert_eq!(scores(&["(?i)x|y"], "yz", MatchMode::FullMatch), 0.0);
        assert_eq!(
            scores(&["(?x) x  # comment"], "x", MatchMode::FullMatch),
            1.0
        );
        assert_eq!(
            scores(&["(?x) x  # comment"], "xy", MatchMode::FullMatch),
            0.0
        );
    }

    #[test]
    fn bad_patterns_are_errors_naming_the_item() {
        let error = pattern_scores(
            &[0, 1, 2],
            &["ok", r"(\w+) \1"],
            &["a", "b"],
            MatchMode::Search,
            Normalization::Squad,
        )
        .unwrap_err();
        match error {
            CoreError::InvalidQuery { query, message, .. } => {
                assert_eq!(query, 1);
                assert!(message.starts_with("[0]"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert!(compile("a)|(b", MatchMode::FullMatch).is_err());
        assert!(compile("(?=x)", MatchMode::Search).is_err());
        // Too large to compile: refused, not built.
        assert!(compile(r"\w{1000}{1000}", MatchMode::Search).is_err());
    }

    #[test]
    fn no_answer_patterns() {
        let patterns = NoAnswerPatterns::new(&["^$", r"\bi dont know\b"]).unwrap();
        let answers = ["I don't know.", "The.", "I know", "Paris"];
        assert_eq!(
            no_answer_scores(&answers, &patterns, Normalization::Squad),
            vec![1.0, 1.0, 0.0, 0.0]
        );
        assert!(NoAnswerPatterns::new(&["("]).is_err());
    }
}
