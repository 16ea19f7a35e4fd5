//! Batches of items worked through on one thread with one reusable state.

/// `f(state, i, &items[i])` for every item, in order, with one `S` for the whole batch (its
/// buffers allocated once). Batches run on the calling thread: the bindings share large ones
/// out in blocks between threads, overlapped with the reading of the next inputs, which a
/// parallel loop in here could not do.
pub(crate) fn map_items<S: Default, I, T>(
    items: &[I],
    f: impl Fn(&mut S, usize, &I) -> T,
) -> Vec<T> {
    let mut state = S::default();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| f(&mut state, i, item))
        .collect()
}
