//! Fusion of TREC run files without holding them (`ragmeter fuse`, `fuse()` on paths).
//!
//! Each run is indexed once ([`RunFile::index`]): read in blocks of lines, every block parsed
//! and checked as `trec` reads a run (a malformed line is an error naming `path:line`, an id
//! that is not UTF-8 is refused), and each query's lines recorded as byte ranges of the file.
//! The queries are then read back from those ranges, fused and handed out in batches of about
//! [`BATCH_BYTES`] of run text ([`RunFiles::batches`]), in the order the caller gives (sorted,
//! as the Python API aligns queries). Memory: the index (a few words per query and per range),
//! one batch of text, its records and fusion input, and one batch of output. A plain file is
//! read again with positioned reads; a compressed one is decompressed once, while it is indexed,
//! and its text kept (a compressed stream cannot be read from the middle).
//!
//! A query's documents, read from its ranges, are those `trec::parse` gives for the whole file,
//! in file order, so a fusion of the files is the fusion of the runs read whole. A file that
//! changes between the indexing and the reading is an error that says so.

use std::fs::File;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::*;
use crate::compressed::{BLOCK_BYTES, Block, LineBlocks};
use crate::prepare::show;
use crate::trec::{self, TrecFile, TrecKind};

/// About how many bytes of run text (all runs together) one batch reads.
pub const BATCH_BYTES: usize = 16 << 20;

/// Lines of one query: `start..end` of the run's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Segment {
    start: u64,
    end: u64,
}

/// Where a run's text is read back from.
#[derive(Debug)]
enum Text {
    /// A plain file, read with positioned reads; its length and modification time when it was
    /// indexed, to refuse a file changed since.
    File {
        file: File,
        len: u64,
        modified: Option<std::time::SystemTime>,
    },
    /// The decompressed text of a compressed file.
    Memory(Vec<u8>),
}

/// One run file, indexed: its queries in order of first appearance and the byte ranges of
/// each query's lines.
#[derive(Debug)]
pub struct RunFile {
    path: PathBuf,
    text: Text,
    ids: Vec<Vec<u8>>,
    position: FxHashMap<Vec<u8>, u32>,
    segments: Vec<Vec<Segment>>,
}

impl RunFile {
    /// Index the run at `path` (see the module's documentation).
    pub fn index(path: &Path) -> CoreResult<RunFile> {
        Self::index_in_blocks(path, BLOCK_BYTES)
    }

    fn index_in_blocks(path: &Path, block_bytes: usize) -> CoreResult<RunFile> {
        let io_error = |source| CoreError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = trec::open_regular(path)?;
        let before = file.metadata().map_err(io_error)?;
        let (compression, reader) =
            crate::compressed::open_any(path, file.try_clone().map_err(io_error)?)?;
        let mut blocks = LineBlocks::new(path, compression, reader, block_bytes);
        let mut run = RunFile {
            path: path.to_path_buf(),
            text: Text::Memory(Vec::new()),
            ids: Vec::new(),
            position: FxHashMap::default(),
            segments: Vec::new(),
        };
        let mut memory: Vec<u8> = Vec::new();
        let (mut offset, mut lines_before) = (0u64, 0usize);
        let mut spare = Block::default();
        let mut order: Vec<(usize, u32)> = Vec::new();
        while let Some(block) = blocks.next_block_in(spare)? {
            {
                let text = block.text();
                let parsed = trec::parse_run_block(text, lines_before, path)?;
                check_utf8(&parsed, text, path)?;
                run.add_block(&parsed, text, offset, lines_before == 0, &mut order)?;
                lines_before += parsed.line_ends;
                if compression.is_some() {
                    reserve(&mut memory, text.len(), "the decompressed run")?;
                    memory.extend_from_slice(text);
                }
                offset += text.len() as u64;
            }
            spare = block;
        }
        run.text = if compression.is_some() {
            Text::Memory(memory)
        } else {
            let after = file.metadata().map_err(io_error)?;
            if after.len() != offset || after.len() != before.len() {
                return Err(changed(path));
            }
            Text::File {
                file,
                len: after.len(),
                modified: after.modified().ok(),
            }
        };
        Ok(run)
    }

    /// The number of a query id, numbering a new one.
    fn query(&mut self, id: &[u8]) -> u32 {
        if let Some(&q) = self.position.get(id) {
            return q;
        }
        let q = self.ids.len() as u32;
        self.ids.push(id.to_vec());
        self.position.insert(id.to_vec(), q);
        self.segments.push(Vec::new());
        q
    }

    /// Record the ranges of the queries of one parsed block (`text`, at `offset` of the run).
    fn add_block(
        &mut self,
        parsed: &TrecFile<'_>,
        text: &[u8],
        offset: u64,
        first_block: bool,
        order: &mut Vec<(usize, u32)>,
    ) -> CoreResult<()> {
        let base = text.as_ptr() as usize;
        let skip = if first_block && text.starts_with(trec::BYTE_ORDER_MARK) {
            trec::BYTE_ORDER_MARK.len()
        } else {
            0
        };
        let at = |doc: &[u8]| doc.as_ptr() as usize - base;
        let line_start = |at: usize| {
            memchr::memrchr(b'\n', &text[..at])
                .map_or(skip, |i| i + 1)
                .max(skip)
        };
        let line_end =
            |at: usize| memchr::memchr(b'\n', &text[at..]).map_or(text.len(), |i| at + i + 1);
        let rows = parsed.docs.view();
        let n = parsed.query_ids.len();
        let numbers: Vec<u32> = parsed.query_ids.iter().map(|id| self.query(id)).collect();
        // Grouped in the block: each query's documents end before the next query's start (the
        // queries are in order of first appearance).
        let grouped = (1..n).all(|k| {
            let (previous, next) = (rows.row(k - 1), rows.row(k));
            at(previous[previous.len() - 1].0) < at(next[0].0)
        });
        let push = |run: &mut RunFile, q: u32, start: usize, end: usize| {
            let segment = Segment {
                start: offset + start as u64,
                end: offset + end as u64,
            };
            let segments = &mut run.segments[q as usize];
            match segments.last_mut() {
                Some(last) if last.end == segment.start => last.end = segment.end,
                _ => segments.push(segment),
            }
        };
        if grouped {
            for (k, &q) in numbers.iter().enumerate() {
                let docs = rows.row(k);
                let (first, last) = (at(docs[0].0), at(docs[docs.len() - 1].0));
                push(self, q, line_start(first), line_end(last));
            }
            return Ok(());
        }
        // Not grouped: every document's place, in file order, cut where the query changes.
        order.clear();
        reserve(order, parsed.docs.values.len(), "the lines of one block")?;
        for k in 0..n {
            order.extend(rows.row(k).iter().map(|d| (at(d.0), k as u32)));
        }
        order.sort_unstable();
        let mut i = 0;
        while i < order.len() {
            let k = order[i].1;
            let mut j = i;
            while j + 1 < order.len() && order[j + 1].1 == k {
                j += 1;
            }
            push(
                self,
                numbers[k as usize],
                line_start(order[i].0),
                line_end(order[j].0),
            );
            i = j + 1;
        }
        Ok(())
    }

    /// The query ids, in order of first appearance in the file.
    pub fn query_ids(&self) -> &[Vec<u8>] {
        &self.ids
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The bytes of query `q`'s lines.
    fn query_bytes(&self, q: u32) -> u64 {
        self.segments[q as usize]
            .iter()
            .map(|s| s.end - s.start)
            .sum()
    }

    /// Append the lines of query `q` to `out`.
    fn read_query(&self, q: u32, out: &mut Vec<u8>) -> CoreResult<()> {
        for segment in &self.segments[q as usize] {
            let len = (segment.end - segment.start) as usize;
            let from = out.len();
            reserve(out, len, "one batch of run text")?;
            match &self.text {
                Text::Memory(text) => {
                    out.extend_from_slice(&text[segment.start as usize..segment.end as usize]);
                }
                Text::File { file, .. } => {
                    out.resize(from + len, 0);
                    trec::read_exact_at(file, &mut out[from..], segment.start).map_err(
                        |e| match e.kind() {
                            std::io::ErrorKind::UnexpectedEof => changed(&self.path),
                            _ => CoreError::Io {
                                path: self.path.clone(),
                                source: e,
                            },
                        },
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Refuse a file that changed since it was indexed.
    fn check_unchanged(&self) -> CoreResult<()> {
        if let Text::File {
            file,
            len,
            modified,
        } = &self.text
        {
            let now = file.metadata().map_err(|source| CoreError::Io {
                path: self.path.clone(),
                source,
            })?;
            if now.len() != *len || now.modified().ok() != *modified {
                return Err(changed(&self.path));
            }
        }
        Ok(())
    }
}

/// The error of a run file that changed after it was indexed.
fn changed(path: &Path) -> CoreError {
    CoreError::argument(
        "runs",
        format!(
            "{}: changed while it was read; fuse it again once it is completely written (write \
             to a temporary file and rename it over the old one to replace a file that is being \
             read)",
            path.display()
        ),
    )
}

/// Refuse an id that is not UTF-8 (ids become Python strings), checking the documents of each
/// query, then its id, as the reading into dicts does. The whole block is checked first: when it
/// is UTF-8, so is every id.
fn check_utf8(parsed: &TrecFile<'_>, text: &[u8], path: &Path) -> CoreResult<()> {
    if std::str::from_utf8(text).is_ok() {
        return Ok(());
    }
    let rows = parsed.docs.view();
    let refuse = |what: &str, id: &[u8]| {
        CoreError::argument(
            "runs",
            format!("{}: {what} {} is not valid UTF-8", path.display(), show(id)),
        )
    };
    for (k, &query_id) in parsed.query_ids.iter().enumerate() {
        if let Some(&(doc, _)) = rows
            .row(k)
            .iter()
            .find(|d| std::str::from_utf8(d.0).is_err())
        {
            return Err(refuse("document id", doc));
        }
        if std::str::from_utf8(query_id).is_err() {
            return Err(refuse("query id", query_id));
        }
    }
    Ok(())
}

/// Several run files, indexed, to be fused.
#[derive(Debug)]
pub struct RunFiles {
    runs: Vec<RunFile>,
}

/// One batch of aligned queries: `first..first + rows[r].n_queries()` of the caller's list,
/// each run's documents of them (an empty row where the run lacks the query).
#[derive(Debug)]
pub struct Batch {
    pub first: usize,
    pub rows: Vec<RunRows>,
}

impl RunFiles {
    /// Index every file (one after the other; each file's blocks are parsed in parallel).
    pub fn index(paths: &[PathBuf]) -> CoreResult<RunFiles> {
        let runs = paths
            .iter()
            .map(|p| RunFile::index(p))
            .collect::<CoreResult<_>>()?;
        Ok(RunFiles { runs })
    }

    /// Index with blocks of `block_bytes` (tests: many blocks from small files).
    #[cfg(test)]
    fn index_in_blocks(paths: &[PathBuf], block_bytes: usize) -> CoreResult<RunFiles> {
        let runs = paths
            .iter()
            .map(|p| RunFile::index_in_blocks(p, block_bytes))
            .collect::<CoreResult<_>>()?;
        Ok(RunFiles { runs })
    }

    pub fn runs(&self) -> &[RunFile] {
        &self.runs
    }

    pub fn n_runs(&self) -> usize {
        self.runs.len()
    }

    /// The batch of `queries` (ids, in the order the fusion gives them) starting at `first`:
    /// queries are added until their text reaches `batch_bytes` (one at least).
    pub fn batch(
        &self,
        queries: &[Vec<u8>],
        first: usize,
        batch_bytes: usize,
    ) -> CoreResult<Batch> {
        let found = |r: usize, i: usize| self.runs[r].position.get(&queries[i]).copied();
        let mut end = first;
        let mut bytes = 0u64;
        while end < queries.len() && (end == first || bytes < batch_bytes as u64) {
            for r in 0..self.runs.len() {
                if let Some(q) = found(r, end) {
                    bytes += self.runs[r].query_bytes(q);
                }
            }
            end += 1;
        }
        let mut rows = Vec::with_capacity(self.runs.len());
        let mut text = Vec::new();
        for (r, run) in self.runs.iter().enumerate() {
            text.clear();
            let mut present = Vec::new();
            for i in first..end {
                if let Some(q) = found(r, i) {
                    run.read_query(q, &mut text)?;
                    present.push(i);
                }
            }
            let parsed = trec::parse_lines(&text, TrecKind::Run, &run.path)
                .map_err(|_| changed(&run.path))?;
            // The queries come back in the order their ranges were read.
            if parsed.query_ids.len() != present.len()
                || parsed
                    .query_ids
                    .iter()
                    .zip(&present)
                    .any(|(id, &i)| *id != queries[i].as_slice())
            {
                return Err(changed(&run.path));
            }
            let docs = parsed.docs.view();
            let mut out = RunRows::new();
            let what = "one batch of runs";
            reserve(&mut out.offsets, end - first, what)?;
            reserve(&mut out.ends, parsed.docs.values.len(), what)?;
            reserve(&mut out.scores, parsed.docs.values.len(), what)?;
            reserve(&mut out.text, text.len(), what)?;
            let mut k = 0;
            for i in first..end {
                if present.get(k) == Some(&i) {
                    for &(id, score) in docs.row(k) {
                        out.push_doc(id, score);
                    }
                    k += 1;
                }
                out.end_query();
            }
            rows.push(out);
        }
        if end == queries.len() {
            for run in &self.runs {
                run.check_unchanged()?;
            }
        }
        Ok(Batch { first, rows })
    }

    /// Fuse one batch (queries named by `queries`, the caller's whole list).
    pub fn fuse_batch(
        &self,
        batch: &Batch,
        queries: &[Vec<u8>],
        norm: Norm,
        method: &Method,
    ) -> CoreResult<Fused> {
        let input = self.input(batch, queries)?;
        fuse_input(&input, norm, method).map_err(|e| name_query(e, queries, batch.first))
    }

    /// The fusion input of one batch; a document listed twice for a query is named at its
    /// second line in the file, as reading the file into dicts names it.
    pub fn input(&self, batch: &Batch, queries: &[Vec<u8>]) -> CoreResult<FusionInput> {
        FusionInput::new(&batch.rows).map_err(|e| match e {
            CoreError::InvalidQuery { query, .. } if first_repeat(&batch.rows, query).is_some() => {
                let (r, doc) = first_repeat(&batch.rows, query).expect("checked");
                let query_id = &queries[batch.first + query];
                let run = &self.runs[r];
                match trec::line_of_repeat(&run.path, query_id, doc, BLOCK_BYTES) {
                    Ok(Some(line)) => CoreError::Format {
                        path: run.path.clone(),
                        line,
                        message: format!(
                            "document {} is listed twice for query {}",
                            show(doc),
                            show(query_id)
                        ),
                    },
                    Ok(None) => changed(&run.path),
                    Err(other) => other,
                }
            }
            other => name_query(other, queries, batch.first),
        })
    }
}

/// The first run (in order) listing a document twice for batch query `q`, and the document.
fn first_repeat(rows: &[RunRows], q: usize) -> Option<(usize, &[u8])> {
    rows.iter().enumerate().find_map(|(r, run)| {
        let mut seen = rustc_hash::FxHashSet::default();
        run.row(q)
            .map(|i| run.id(i))
            .find(|id| !seen.insert(*id))
            .map(|id| (r, id))
    })
}

/// A per-query error of a batch named with the query's id.
fn name_query(err: CoreError, queries: &[Vec<u8>], first: usize) -> CoreError {
    match err {
        CoreError::InvalidQuery {
            query,
            query_id: None,
            message,
        } => CoreError::InvalidQuery {
            query: first + query,
            query_id: queries
                .get(first + query)
                .map(|id| String::from_utf8_lossy(id).into_owned()),
            message,
        },
        other => other,
    }
}

/// Append the TREC lines of the fused queries `first..` of `fused` (query `q` named
/// `query_ids[q]`), as `crate::trec_write` writes them; `tag` is the run tag. The queries are
/// formatted in parallel.
pub fn write_fused(
    out: &mut Vec<u8>,
    fused: &Fused,
    query_ids: &[Vec<u8>],
    tag: &[u8],
) -> CoreResult<()> {
    let pieces: Vec<Vec<u8>> = (0..fused.n_queries())
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(docs, order), q| -> CoreResult<Vec<u8>> {
                docs.clear();
                docs.extend(fused.row(q).map(|i| (fused.id(i), fused.scores[i])));
                let mut text = Vec::new();
                crate::trec_write::write_ranking(&mut text, &query_ids[q], docs, tag, order)?;
                Ok(text)
            },
        )
        .collect::<CoreResult<_>>()?;
    let total: usize = pieces.iter().map(Vec::len).sum();
    reserve(out, total, "the fused run's text")?;
    for piece in pieces {
        out.extend_from_slice(&piece);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temporary(name: &str, contents: &[u8]) -> PathBuf {
        let path = std::env::temp_dir().join(format!(
            "ragmeter-fusion-files-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// The run of a TREC text as `RunRows` aligned on `queries`, read whole.
    fn whole(text: &[u8], queries: &[Vec<u8>]) -> RunRows {
        let parsed = trec::parse(text, TrecKind::Run, Path::new("x")).unwrap();
        let rows = parsed.docs.view();
        let mut out = RunRows::new();
        for q in queries {
            if let Some(k) = parsed.query_ids.iter().position(|id| *id == q.as_slice()) {
                for &(id, s) in rows.row(k) {
                    out.push_doc(id, s);
                }
            }
            out.end_query();
        }
        out
    }

    #[test]
    fn batches_read_back_what_the_whole_files_hold() {
        // Not grouped, a comment, a blank line, a byte order mark, no final newline.
        let a = b"\xEF\xBB\xBFq2 Q0 d1 1 0.5 t\nq1 Q0 d2 1 3 t\n# note\nq2 Q0 d3 2 0.25 t\n\nq1 Q0 d4 2 1 t\nq3 Q0 d9 1 7 t";
        let b = b"q1 Q0 d2 1 2.5 t\nq1 Q0 d5 2 2 t\nq3 Q0 d1 1 1 t\n";
        let pa = temporary("a", a);
        let pb = temporary("b", b);
        let queries: Vec<Vec<u8>> = vec![b"q1".to_vec(), b"q2".to_vec(), b"q3".to_vec()];
        for block_bytes in [8, 20, 1 << 20] {
            let files = RunFiles::index_in_blocks(&[pa.clone(), pb.clone()], block_bytes).unwrap();
            assert_eq!(
                files.runs()[0].query_ids(),
                [b"q2".to_vec(), b"q1".to_vec(), b"q3".to_vec()]
            );
            for batch_bytes in [1, 40, 1 << 20] {
                let mut first = 0;
                let (mut got_a, mut got_b) = (RunRows::new(), RunRows::new());
                while first < queries.len() {
                    let batch = files.batch(&queries, first, batch_bytes).unwrap();
                    let n = batch.rows[0].n_queries();
                    for (got, rows) in [(&mut got_a, &batch.rows[0]), (&mut got_b, &batch.rows[1])]
                    {
                        for q in 0..n {
                            for i in rows.row(q) {
                                got.push_doc(rows.id(i), rows.scores[i]);
                            }
                            got.end_query();
                        }
                    }
                    first += n;
                }
                let (want_a, want_b) = (whole(a, &queries), whole(b, &queries));
                assert_eq!(got_a.offsets, want_a.offsets);
                assert_eq!(got_a.text, want_a.text);
                assert_eq!(got_a.scores, want_a.scores);
                assert_eq!(got_b.offsets, want_b.offsets);
                assert_eq!(got_b.text, want_b.text);
            }
        }
    }

    #[test]
    fn a_document_listed_twice_is_named_at_its_second_line() {
        let pa = temporary(
            "dup-a",
            b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\nq1 Q0 d1 3 0.2 t\n",
        );
        let pb = temporary("dup-b", b"q1 Q0 d1 1 1 t\n");
        let files = RunFiles::index(&[pa.clone(), pb]).unwrap();
        let queries = vec![b"q1".to_vec()];
        let batch = files.batch(&queries, 0, BATCH_BYTES).unwrap();
        let err = files.input(&batch, &queries).unwrap_err().to_string();
        assert!(
            err.ends_with(":3: document 'd1' is listed twice for query 'q1'"),
            "{err}"
        );
    }

    #[test]
    fn a_file_changed_after_indexing_is_refused() {
        let pa = temporary("changed-a", b"q1 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\n");
        let pb = temporary("changed-b", b"q1 Q0 d1 1 1 t\n");
        let files = RunFiles::index(&[pa.clone(), pb]).unwrap();
        std::fs::write(&pa, b"q1 Q0 d1 1 1 t\n").unwrap();
        let err = files.batch(&[b"q1".to_vec()], 0, BATCH_BYTES).unwrap_err();
        assert!(
            err.to_string().contains("changed while it was read"),
            "{err}"
        );
    }
}
