//! trec_eval's gain tables: the levels of a query's judgments with their gains, sorted as trec_eval sorts them, and the ideal ranking they give.

/// One level of trec_eval's gain table (`REL_GAIN`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LevelGain {
    pub(super) level: f64,
    pub(super) gain: f64,
    pub(super) count: usize,
}

/// trec_eval's `setup_gains`: the user's pairs first (those whose level is an integer), then
/// every level of the judgments without a pair (gain = level), sorted by gain as trec_eval
/// sorts them.
pub(super) fn gain_table(pairs: &[(i64, f64)], levels: &[(f64, usize)]) -> Vec<LevelGain> {
    let count_at = |level: f64| levels.iter().find(|l| l.0 == level).map_or(0, |l| l.1);
    let mut table: Vec<LevelGain> = pairs
        .iter()
        .map(|&(level, gain)| LevelGain {
            level: level as f64,
            gain,
            count: count_at(level as f64),
        })
        .collect();
    for &(level, count) in levels {
        if !table.iter().any(|g| g.level == level) {
            table.push(LevelGain {
                level,
                gain: level,
                count,
            });
        }
    }
    glibc_merge_sort(&mut table, |a, b| {
        // trec_eval's comparator returns the difference of the gains converted to an int:
        // gains less than 1 apart compare equal. glibc's qsort (a merge sort) keeps equal
        // elements in order, so that order is reproduced, not a total order by gain.
        (a.gain - b.gain) as i32
    });
    table
}

/// glibc's `msort_with_tmp` (the merge sort behind `qsort`): the same comparisons in the same
/// order, so that a comparator that is not a total order gives glibc's result. Never panics.
pub(super) fn glibc_merge_sort<T: Copy>(items: &mut [T], cmp: impl Fn(&T, &T) -> i32 + Copy) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    glibc_merge_sort(&mut items[..n1], cmp);
    glibc_merge_sort(&mut items[n1..], cmp);
    let mut merged = Vec::with_capacity(n);
    let (mut i, mut j) = (0, n1);
    while i < n1 && j < n {
        if cmp(&items[i], &items[j]) <= 0 {
            merged.push(items[i]);
            i += 1;
        } else {
            merged.push(items[j]);
            j += 1;
        }
    }
    merged.extend_from_slice(&items[i..n1]);
    merged.extend_from_slice(&items[j..n]);
    items.copy_from_slice(&merged);
}

/// trec_eval's `get_gain`: the gain of a relevance value (0 for values without a level).
pub(super) fn gain_of(relevance: f64, table: &[LevelGain]) -> f64 {
    table
        .iter()
        .find(|g| g.level == relevance)
        .map_or(0.0, |g| g.gain)
}

/// The ideal ranking of a gain table, walked as trec_eval walks it: from the highest gain
/// down, `count` documents per level, ending at the first level whose gain is not positive.
pub(super) struct IdealGains<'a> {
    pub(super) table: &'a [LevelGain],
    pub(super) level: isize,
    pub(super) at_level: usize,
}

impl<'a> IdealGains<'a> {
    pub(super) fn new(table: &'a [LevelGain]) -> Self {
        IdealGains {
            table,
            level: table.len() as isize - 1,
            at_level: 0,
        }
    }

    pub(super) fn current(&self) -> f64 {
        if self.level >= 0 {
            self.table[self.level as usize].gain
        } else {
            0.0
        }
    }

    /// Move to the next rank; return its ideal gain (trec_eval's `ideal_gain`).
    pub(super) fn advance(&mut self) -> f64 {
        self.at_level += 1;
        while self.level >= 0 && self.at_level > self.table[self.level as usize].count {
            self.at_level = 1;
            self.level -= 1;
        }
        self.current()
    }
}
