import Foundation
import MediaPrep
import UploadPlanner

/// Writes to stdout/stderr; JSON mode prints exactly one document on stdout. Lines are written
/// whole under a lock, so a progress bar on stderr never cuts into them.
enum Output {
    private static let lock = NSLock()

    static func line(_ s: String) { write(s + "\n", to: FileHandle.standardOutput) }

    static func error(_ s: String) { write("mediaprep: " + s + "\n", to: FileHandle.standardError) }

    /// A line on stderr without the program-name prefix (the /_send lines in JSON modes).
    static func stderr(_ s: String) { write(s + "\n", to: FileHandle.standardError) }

    static func json(_ v: JSONValue) { line(v.serialized) }

    static func write(_ s: String, to handle: FileHandle) {
        lock.lock()
        defer { lock.unlock() }
        ProgressBar.shared?.clearLocked()
        // A file name's stray bytes as \xE9. Written with write(2): a closed pipe (`| head`) is EPIPE
        // here and SIGPIPE to the trap, which stops the batch cleanly; FileHandle would trap.
        if !PosixIO.writeAll(handle.fileDescriptor, Array(FileNameBytes.display(s).utf8)), errno == EPIPE { SignalTrap.current?.fire(SIGPIPE) }
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
