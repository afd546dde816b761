/// The array a typed read (`DAOObject.fetch`) fills: the functions that read its rows append
/// here, as GRDB's record cursors fill the array `fetchAll` returns. A class, so the reading
/// functions, kept by the call while it runs, share it with `fetch`.
@usableFromInline
final class FetchedRows<T> {
    /// The rows read so far.
    @usableFromInline var rows: [T] = []

    @usableFromInline init() {}
}
