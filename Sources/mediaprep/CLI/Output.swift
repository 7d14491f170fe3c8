import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// Writes to stdout/stderr; JSON mode prints exactly one document on stdout. Lines are written
/// whole under a lock, so a progress bar on stderr never cuts into them.
enum Output {
    private static let lock = PosixLock()

    static func line(_ s: String) { write(s + "\n", to: STDOUT_FILENO) }

    static func error(_ s: String) { write("mediaprep: " + s + "\n", to: STDERR_FILENO) }

    /// A line on stderr without the program-name prefix (the /_send lines in JSON modes).
    static func stderr(_ s: String) { write(s + "\n", to: STDERR_FILENO) }

    static func json(_ v: JSONValue) { line(v.serialized) }

    static func write(_ s: String, to fd: Int32) {
        lock.lock()
        defer { lock.unlock() }
        ProgressBar.shared?.clearLocked()
        // A file name's stray bytes as \xE9. Written with write(2): a closed pipe (`| head`) is EPIPE
        // here and SIGPIPE to the trap, which stops the batch cleanly; a FileHandle would trap.
        if !PosixIO.writeAll(fd, Array(FileNameBytes.display(s).utf8)), errno == EPIPE { SignalTrap.current?.fire(SIGPIPE) }
        ProgressBar.shared?.drawLocked()
    }

    /// Runs `body` holding the output lock (the progress bar draws under it).
    static func locked(_ body: () -> Void) { lock.lock(); body(); lock.unlock() }
}

extension Optional where Wrapped == Int {
    var json: JSONValue { map { .int($0) } ?? .null }
}

extension Optional where Wrapped == Double {
    var json: JSONValue { map { .double($0) } ?? .null }
}
