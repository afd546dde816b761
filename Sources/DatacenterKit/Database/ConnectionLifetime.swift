/// Whether a connection has been closed, shared by the `Database` and every statement it
/// prepared, so a statement kept past `Database.close()` fails with a typed error instead of
/// running on a closed connection.
///
/// Not `Sendable`, like the connection it belongs to: it is written by `close()` and read by
/// the connection's statements, all on the thread using that connection, one at a time.
final class ConnectionLifetime {
    /// True once `Database.close()` has run.
    var isClosed = false
}
