//! Compressed TREC files: gzip (also several members, as `cat a.gz b.gz` makes), bzip2, xz and
//! zstd (also several frames), recognised by their first bytes whatever the file's name, and
//! decompressed as a stream by pure-Rust decoders (`flate2` with `zlib-rs`, `bzip2` with
//! `libbz2-rs-sys`, `lzma-rust2`, `ruzstd`).
//!
//! Memory stays bounded: `LineBlocks` hands out the text in blocks of whole lines, so a run can
//! be parsed and prepared block by block (`trec::prepare_files`) without the whole
//! decompressed text in memory; `read_all` (judgments, and runs that are not grouped by query)
//! grows its buffer fallibly, so a file that decompresses to more than the memory available
//! is an error, not an aborted process. Decoders whose memory depends on the file's header are
//! capped (`MAX_WINDOW_BYTES`).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{CoreError, CoreResult};

/// A compression format of TREC files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Bzip2,
    Xz,
    Zstd,
}

impl Compression {
    /// The compression of a file that starts with `head`, if any.
    pub fn of(head: &[u8]) -> Option<Compression> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Compression::Gzip)
        } else if head.starts_with(b"BZh") {
            Some(Compression::Bzip2)
        } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0x00]) {
            Some(Compression::Xz)
        } else if head.starts_with(&ZSTD_MAGIC) || is_skippable(head) {
            Some(Compression::Zstd)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zstd => "zstd",
        }
    }
}

/// The largest dictionary or window a file may ask the xz and zstd decoders for (xz -9 uses
/// 64 MiB, zstd's default limit is 128 MiB).
const MAX_WINDOW_BYTES: u64 = 1 << 30;

/// Blocks of decompressed text handed out by `LineBlocks`.
pub const BLOCK_BYTES: usize = 8 << 20;

/// The largest decompressed size read from one compressed file unless the caller raises it
/// (`set_max_decompressed_bytes`): 16 GiB, far more than any run or judgments file that fits
/// in memory, and a bound on the time a compression bomb (a 1 MB `.gz` that expands to
/// gigabytes) can take.
pub const DEFAULT_MAX_DECOMPRESSED_BYTES: u64 = 16 << 30;

/// The limit set by `set_max_decompressed_bytes` (0: not set).
static MAX_DECOMPRESSED_BYTES: AtomicU64 = AtomicU64::new(0);

/// The decompressed-size limit of compressed files: the one set by
/// `set_max_decompressed_bytes` (process-wide, as `PIL.Image.MAX_IMAGE_PIXELS`), else the
/// environment variable `RAGMETER_MAX_DECOMPRESSED_BYTES`, else
/// `DEFAULT_MAX_DECOMPRESSED_BYTES`. Files that decompress to more are refused.
pub fn max_decompressed_bytes() -> CoreResult<u64> {
    match MAX_DECOMPRESSED_BYTES.load(Ordering::Relaxed) {
        0 => match std::env::var("RAGMETER_MAX_DECOMPRESSED_BYTES") {
            Ok(value) => match value.trim().parse::<u64>() {
                Ok(n) if n > 0 => Ok(n),
                _ => Err(CoreError::argument(
                    "RAGMETER_MAX_DECOMPRESSED_BYTES",
                    format!(
                        "must be a positive integer (a number of bytes), got {:?}; unset it \
                         for the default of {DEFAULT_MAX_DECOMPRESSED_BYTES}",
                        value.chars().take(40).collect::<String>()
                    ),
                )),
            },
            Err(_) => Ok(DEFAULT_MAX_DECOMPRESSED_BYTES),
        },
        n => Ok(n),
    }
}

/// Set the decompressed-size limit (None: back to the environment variable or the default)
/// and return the previous setting.
pub fn set_max_decompressed_bytes(limit: Option<u64>) -> Option<u64> {
    let previous = MAX_DECOMPRESSED_BYTES.swap(limit.unwrap_or(0), Ordering::Relaxed);
    (previous != 0).then_some(previous)
}

/// The first bytes of a zstd frame and of a skippable frame (0x184D2A50 to 0x184D2A5F, little
/// endian; `pzstd` starts its files with one).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const SKIPPABLE_MAGIC_TAIL: [u8; 3] = [0x2a, 0x4d, 0x18];

fn is_skippable(head: &[u8]) -> bool {
    head.len() >= 4 && head[0] & 0xf0 == 0x50 && head[1..4] == SKIPPABLE_MAGIC_TAIL
}

fn invalid(message: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, message)
}

/// The frames of a zstd stream, one after the other: skippable frames are skipped (their
/// content is metadata, not text) and each frame's content checksum, when it has one, is
/// verified when the frame ends (as `zstd -d` does): a damaged file is an error, never other
/// text.
struct ZstdFrames<R: BufRead> {
    source: R,
    decoder: ruzstd::decoding::FrameDecoder,
    /// Whether a frame is being decoded (else the next one starts at `source`).
    in_frame: bool,
    /// Whether any zstd frame was decoded (a file of skippable frames only holds no text).
    frames: u64,
}

impl<R: BufRead> ZstdFrames<R> {
    fn new(source: R) -> Self {
        let mut decoder = ruzstd::decoding::FrameDecoder::new();
        decoder.set_max_window_size(MAX_WINDOW_BYTES);
        ZstdFrames {
            source,
            decoder,
            in_frame: false,
            frames: 0,
        }
    }

    /// Start the next zstd frame, skipping skippable frames; false at the end of the data.
    fn start_frame(&mut self) -> std::io::Result<bool> {
        loop {
            if self.source.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.init(&mut self.source) {
                Ok(()) => {
                    self.in_frame = true;
                    self.frames += 1;
                    return Ok(true);
                }
                Err(ruzstd::decoding::errors::FrameDecoderError::ReadFrameHeaderError(
                    ruzstd::decoding::errors::ReadFrameHeaderError::SkipFrame { length, .. },
                )) => {
                    let skipped = std::io::copy(
                        &mut (&mut self.source).take(u64::from(length)),
                        &mut std::io::sink(),
                    )?;
                    if skipped != u64::from(length) {
                        return Err(invalid(format!(
                            "a skippable frame of {length} bytes ends after {skipped}"
                        )));
                    }
                }
                Err(e) => return Err(invalid(e.to_string())),
            }
        }
    }

    /// The frame ended and every byte was read: compare its checksum, if it has one.
    fn end_frame(&mut self) -> std::io::Result<()> {
        self.in_frame = false;
        if let Some(stored) = self.decoder.get_checksum_from_data() {
            let computed = self.decoder.get_calculated_checksum();
            if computed != Some(stored) {
                return Err(invalid(format!(
                    "frame {}: the content checksum is {stored:#010x} but the content read \
                     hashes to {:#010x}",
                    self.frames,
                    computed.unwrap_or(0)
                )));
            }
        }
        Ok(())
    }
}

impl<R: BufRead> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame && !self.start_frame()? {
                return Ok(0);
            }
            while self.decoder.can_collect() == 0 && !self.decoder.is_finished() {
                self.decoder
                    .decode_blocks(
                        &mut self.source,
                        ruzstd::decoding::BlockDecodingStrategy::UptoBlocks(1),
                    )
                    .map_err(|e| invalid(e.to_string()))?;
            }
            let n = self.decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() && self.decoder.can_collect() == 0 {
                self.end_frame()?;
            }
        }
    }
}

/// A reader that refuses to hand out more than `limit` bytes.
struct Limited<R: Read> {
    inner: R,
    read: u64,
    limit: u64,
}

impl<R: Read> Read for Limited<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                LimitExceeded(self.limit),
            ));
        }
        Ok(n)
    }
}

/// The error of a file that decompresses to more than the limit.
#[derive(Debug)]
struct LimitExceeded(u64);

impl std::fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "decompresses to more than {} bytes", self.0)
    }
}

impl std::error::Error for LimitExceeded {}

fn damaged(path: &Path, compression: Compression, error: std::io::Error) -> CoreError {
    if let Some(LimitExceeded(limit)) = error.get_ref().and_then(|e| e.downcast_ref()) {
        return CoreError::argument(
            "path",
            format!(
                "{}: the {} data decompresses to more than {limit} bytes, the limit \
                 max_decompressed_bytes (a guard against compression bombs); if the file is \
                 genuine, raise it with ragmeter.io.set_max_decompressed_bytes() or the \
                 environment variable RAGMETER_MAX_DECOMPRESSED_BYTES",
                path.display(),
                compression.name()
            ),
        );
    }
    CoreError::argument(
        "path",
        format!(
            "{}: the {} data cannot be decompressed ({error}); the file is damaged or \
             truncated",
            path.display(),
            compression.name()
        ),
    )
}

/// A decompressing reader over the regular file `file` (at `path`), or None if it is not
/// compressed.
pub fn open(path: &Path, file: File) -> CoreResult<Option<(Compression, Box<dyn Read + Send>)>> {
    Ok(match open_any(path, file)? {
        (Some(compression), reader) => Some((compression, reader)),
        (None, _) => None,
    })
}

/// A reader of the text of the regular file `file` (at `path`): decompressing when it is
/// compressed (its compression), else the file itself (None), read from its start.
pub fn open_any(
    path: &Path,
    file: File,
) -> CoreResult<(Option<Compression>, Box<dyn Read + Send>)> {
    // The head is read into an array, not a buffer of the heap: a plain file (most runs) is
    // then read with no allocation of its own, so no fixed-size buffer can fail to allocate.
    let mut file = file;
    let mut head = [0u8; HEAD_BYTES];
    let mut filled = 0;
    while filled < HEAD_BYTES {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(source) => {
                return Err(CoreError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
    }
    let compression = Compression::of(&head[..filled]);
    // The head goes back in front of the rest: the reader starts at the file's first byte.
    let whole = std::io::Cursor::new(head).take(filled as u64).chain(file);
    let Some(compression) = compression else {
        return Ok((None, Box::new(whole)));
    };
    let source = BufReader::with_capacity(1 << 16, whole);
    let reader: Box<dyn Read + Send> = match compression {
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(source)),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(source)),
        Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(
            source,
            true,
            (MAX_WINDOW_BYTES / 1024) as u32,
        )),
        Compression::Zstd => Box::new(ZstdFrames::new(source)),
    };
    let reader = Box::new(Limited {
        inner: reader,
        read: 0,
        limit: max_decompressed_bytes()?,
    });
    Ok((Some(compression), reader))
}

/// The bytes that tell a compressed file (xz's magic is the longest).
const HEAD_BYTES: usize = 6;

/// The most bytes asked of a reader at once.
const READ_BYTES: usize = 1 << 16;

/// Fill `block` from `reader` until its text reaches `limit` bytes or the data ends; false at
/// the end of the data. Its buffer only grows: the bytes past the text are zeros or old text,
/// overwritten by the reads, so a reused block is not zeroed again for every block.
fn fill(
    reader: &mut dyn Read,
    block: &mut Block,
    limit: usize,
    path: &Path,
    compression: Option<Compression>,
) -> CoreResult<bool> {
    let Block {
        bytes: buf,
        len: filled,
    } = block;
    // Read straight into `buf` (no copy through a buffer of its own): a plain file's bytes
    // are copied once, from the kernel.
    while *filled < limit {
        let start = *filled;
        let want = (limit - start).min(READ_BYTES);
        if buf.len() < start + want {
            buf.try_reserve(start + want - buf.len())
                .map_err(|_| CoreError::OutOfMemory {
                    what: format!(
                        "{} bytes of {} at once{}",
                        start + want,
                        path.display(),
                        if compression.is_some() {
                            " (decompressed)"
                        } else {
                            ""
                        }
                    ),
                })?;
            buf.resize(start + want, 0);
        }
        let n = match reader.read(&mut buf[start..start + want]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(match compression {
                    Some(compression) => damaged(path, compression, e),
                    None => CoreError::Io {
                        path: path.to_path_buf(),
                        source: e,
                    },
                });
            }
        };
        if n == 0 {
            return Ok(false);
        }
        *filled += n;
    }
    Ok(true)
}

/// The whole decompressed text of a compressed file.
pub fn read_all(
    path: &Path,
    compression: Compression,
    mut reader: Box<dyn Read + Send>,
) -> CoreResult<Vec<u8>> {
    let mut block = Block::default();
    fill(
        &mut *reader,
        &mut block,
        usize::MAX,
        path,
        Some(compression),
    )?;
    block.bytes.truncate(block.len);
    Ok(block.bytes)
}

/// The (decompressed) text of a file in blocks that end at line ends (the last block ends
/// where the file ends).
pub struct LineBlocks {
    reader: Box<dyn Read + Send>,
    /// None: a plain file.
    compression: Option<Compression>,
    path: std::path::PathBuf,
    /// The start of the next block: the bytes after the last line end read.
    tail: Vec<u8>,
    done: bool,
    block_bytes: usize,
    /// Bytes of text returned in blocks so far.
    returned: u64,
}

impl LineBlocks {
    /// Blocks of about `block_bytes` (`BLOCK_BYTES` unless testing).
    pub fn new(
        path: &Path,
        compression: Option<Compression>,
        reader: Box<dyn Read + Send>,
        block_bytes: usize,
    ) -> Self {
        LineBlocks {
            reader,
            compression,
            path: path.to_path_buf(),
            tail: Vec::new(),
            done: false,
            block_bytes,
            returned: 0,
        }
    }

    /// How many bytes of text the blocks returned so far hold.
    pub fn bytes_returned(&self) -> u64 {
        self.returned
    }

    /// The next block of whole lines, or None at the end. A line longer than a block makes
    /// the block as long as the line.
    pub fn next_block(&mut self) -> CoreResult<Option<Block>> {
        self.next_block_in(Block::default())
    }

    /// `next_block`, in `spare` (a block done with, whose memory is reused: no fresh pages to
    /// fault in, nor bytes to zero, for every block).
    pub fn next_block_in(&mut self, spare: Block) -> CoreResult<Option<Block>> {
        if self.done {
            return Ok(None);
        }
        let mut block = spare;
        let carried = self.tail.len();
        if block.bytes.len() < carried {
            block.bytes.resize(carried, 0);
        }
        block.bytes[..carried].copy_from_slice(&self.tail);
        block.len = carried;
        self.tail.clear();
        let mut limit = self.block_bytes.max(carried + 1);
        loop {
            let more = fill(
                &mut *self.reader,
                &mut block,
                limit,
                &self.path,
                self.compression,
            )?;
            if !more {
                self.done = true;
                self.returned += block.len as u64;
                return Ok((block.len > 0).then_some(block));
            }
            if let Some(end) = memchr::memrchr(b'\n', block.text()) {
                self.tail
                    .extend_from_slice(&block.bytes[end + 1..block.len]);
                block.len = end + 1;
                self.returned += block.len as u64;
                return Ok(Some(block));
            }
            limit = limit.saturating_mul(2);
        }
    }
}

/// A block of whole lines handed out by [`LineBlocks`]: its text, in a buffer that may be
/// longer (handed back to `next_block_in`, it is reused as it is).
#[derive(Default)]
pub struct Block {
    bytes: Vec<u8>,
    /// How many bytes of `bytes` are the block's text.
    len: usize,
}

impl Block {
    /// The block's text.
    pub fn text(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temporary(name: &str, contents: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("ragmeter-gz-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        path
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn multi_member_gzip_reads_whole_and_in_line_blocks() {
        let part: Vec<u8> = (0..200_000)
            .flat_map(|i| format!("q{} Q0 d{i} 1 0.5 r\n", i % 7).into_bytes())
            .collect();
        let mut contents = gzip(&part);
        contents.extend(gzip(b"last Q0 d 1 0.5 r"));
        let path = temporary("multi.gz", &contents);
        let mut want = part.clone();
        want.extend_from_slice(b"last Q0 d 1 0.5 r");
        let (compression, reader) = open(&path, File::open(&path).unwrap()).unwrap().unwrap();
        assert_eq!(compression, Compression::Gzip);
        assert_eq!(read_all(&path, compression, reader).unwrap(), want);
        let (compression, reader) = open(&path, File::open(&path).unwrap()).unwrap().unwrap();
        let mut blocks = LineBlocks::new(&path, Some(compression), reader, BLOCK_BYTES / 8);
        let mut got = Vec::new();
        let mut n = 0;
        while let Some(block) = blocks.next_block().unwrap() {
            let text = block.text();
            assert!(text.ends_with(b"\n") || text.ends_with(b"0.5 r"));
            got.extend_from_slice(text);
            n += 1;
        }
        assert!(n > 1, "{n} blocks");
        assert_eq!(got, want);
        std::fs::remove_file(&path).unwrap();
    }

    /// One zstd frame of `data` in raw blocks, with a content checksum (ruzstd's encoder
    /// writes one), so a changed content byte still decodes and only the checksum tells.
    fn zstd_raw_frame(data: &[u8]) -> Vec<u8> {
        let frame = ruzstd::encoding::compress_to_vec(
            data,
            ruzstd::encoding::CompressionLevel::Uncompressed,
        );
        assert_eq!(frame[4] & 0x04, 0x04, "no content checksum flag");
        frame
    }

    fn decompressed(path: &Path) -> CoreResult<Vec<u8>> {
        let (compression, reader) = open(path, File::open(path).unwrap())?.unwrap();
        read_all(path, compression, reader)
    }

    #[test]
    fn zstd_checksums_are_verified_and_skippable_frames_skipped() {
        let text: Vec<u8> = (0..40)
            .flat_map(|i| format!("q1 Q0 d{i} {} 0.5 r\n", i + 1).into_bytes())
            .collect();
        let frame = zstd_raw_frame(&text);
        let path = temporary("check.zst", &frame);
        assert_eq!(decompressed(&path).unwrap(), text);
        // A changed byte of the content: the frame still decodes, its checksum differs.
        let mut damaged = frame.clone();
        let at = frame.len() / 2;
        damaged[at] ^= 0x01;
        std::fs::write(&path, &damaged).unwrap();
        let err = decompressed(&path).unwrap_err().to_string();
        assert!(err.contains("content checksum"), "{err}");
        // Skippable frames (any of the 16 magics) before, between and after the frames.
        let mut layered = Vec::new();
        for (i, part) in [&frame, &frame].iter().enumerate() {
            layered.extend_from_slice(&[
                0x50 + i as u8 * 15,
                0x2a,
                0x4d,
                0x18,
                3,
                0,
                0,
                0,
                1,
                2,
                3,
            ]);
            layered.extend_from_slice(part);
        }
        layered.extend_from_slice(&[0x5a, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
        std::fs::write(&path, &layered).unwrap();
        assert_eq!(Compression::of(&layered), Some(Compression::Zstd));
        assert_eq!(
            decompressed(&path).unwrap(),
            [&text[..], &text[..]].concat()
        );
        // A skippable frame cut short is damage, not the end of the data.
        layered.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 9, 0, 0, 0, 1]);
        std::fs::write(&path, &layered).unwrap();
        let err = decompressed(&path).unwrap_err().to_string();
        assert!(err.contains("skippable frame"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn the_decompressed_size_limit_is_an_error_naming_it() {
        // The reader `open` wraps, with a limit of its own: the process-wide setting is not
        // changed under the other tests, which run in parallel.
        let text = vec![b'x'; 300_000];
        let path = temporary("limit.gz", &gzip(&text));
        let (compression, reader) = open(&path, File::open(&path).unwrap()).unwrap().unwrap();
        let limited = Box::new(Limited {
            inner: reader,
            read: 0,
            limit: 100_000,
        });
        let err = read_all(&path, compression, limited)
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than 100000 bytes"), "{err}");
        assert!(err.contains("set_max_decompressed_bytes"), "{err}");
        assert_eq!(decompressed(&path).unwrap().len(), text.len());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn damaged_data_is_an_error_and_plain_text_is_not_compressed() {
        let mut contents = gzip(b"q 0 d 1\n");
        let cut = contents.len() - 12;
        contents.truncate(cut);
        let path = temporary("cut.gz", &contents);
        let (compression, reader) = open(&path, File::open(&path).unwrap()).unwrap().unwrap();
        let err = read_all(&path, compression, reader)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cannot be decompressed"), "{err}");
        std::fs::write(&path, b"q 0 d 1\n").unwrap();
        assert!(open(&path, File::open(&path).unwrap()).unwrap().is_none());
        std::fs::remove_file(&path).unwrap();
    }
}
