import FoundationEssentials
import Glibc
import Dispatch
import MediaPrep

/// done/total, the current file, files/s and ETA on stderr, only when stderr is a terminal.
final class ProgressBar: @unchecked Sendable {
    /// Read and written only under `Output`'s lock.
    nonisolated(unsafe) static var shared: ProgressBar?

    private var state = BatchRunner.Progress(started: 0, done: 0, total: nil, current: nil)
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var visible = false
    private let width: Int

    /// The bar is drawn for people only: not into pipes, files or CI logs, and not with --quiet.
    static func wanted(quiet: Bool, stderrIsTerminal: Bool = isatty(STDERR_FILENO) == 1) -> Bool {
        !quiet && stderrIsTerminal && Environment.value("TERM") != "dumb"
    }

    /// Installs a bar when wanted; returns the progress callback to hand the batch (nil if none).
    static func install(quiet: Bool) -> (@Sendable (BatchRunner.Progress) -> Void)? {
        guard wanted(quiet: quiet) else { return nil }
        var ws = winsize()
        let cols = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &ws) == 0 && ws.ws_col > 20 ? Int(ws.ws_col) : 80
        let bar = ProgressBar(width: cols)
        Output.locked { shared = bar }
        return { p in bar.update(p) }
    }

    private init(width: Int) { self.width = width }

    /// When the input now in `state.current` was first seen, for its share of the ETA.
    private var currentSince: UInt64 = 0

    func update(_ p: BatchRunner.Progress) {
        Output.locked {
            if p.current != state.current { currentSince = DispatchTime.now().uptimeNanoseconds }
            state = p
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - lastDraw > 100_000_000 || p.done == p.total else { return }
            lastDraw = now
            clearLocked()
            drawLocked()
        }
    }

    /// Seconds left: the input in flight by its own progress (a transcode reports the share of its
    /// duration done, so a 40-minute video weighs as 40 minutes, not as one file), the inputs not
    /// started at the pace of those finished. nil until there is something to go on.
    static func eta(done: Int, total: Int, elapsed: Double, current fraction: Double?, currentElapsed: Double) -> Double? {
        var inFlight = 0.0, counted = 0
        if let f = fraction, f > 0.02, f < 1 {
            inFlight = currentElapsed * (1 - f) / f
            counted = 1
        }
        let left = max(0, total - done - counted)
        guard done > 0 || counted > 0 else { return nil }
        // The pace of finished inputs, not counting the time spent on the one in flight.
        let finishedTime = max(0, elapsed - (counted > 0 ? currentElapsed : 0))
        let perInput = done > 0 ? finishedTime / Double(done) : currentElapsed / max(0.02, fraction ?? 1)
        return inFlight + Double(left) * perInput
    }

    /// Removes the bar for good (end of the batch).
    static func finish() {
        Output.locked {
            shared?.clearLocked()
            shared = nil
        }
    }

    func clearLocked() {
        guard visible else { return }
        _ = PosixIO.writeAll(STDERR_FILENO, Array("\r\u{1B}[K".utf8))
        visible = false
    }

    func drawLocked() {
        let now = DispatchTime.now().uptimeNanoseconds
        let elapsed = Double(now - start) / 1e9
        let rate = elapsed > 0 ? Double(state.done) / elapsed : 0
        var s = ""
        if let total = state.total, total > 0 {
            let cells = 20
            let filled = min(cells, state.done * cells / total)
            s += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "] "
            s += "\(state.done)/\(total)"
            if let eta = Self.eta(done: state.done, total: total, elapsed: elapsed, current: state.fraction,
                                  currentElapsed: Double(now - currentSince) / 1e9), state.done < total {
                s += String(format: " ETA %.0fs", eta)
            }
        } else {
            s += "\(state.done) done"
        }
        s += String(format: " %.1f files/s", rate)
        if let c = state.current {
            let name = c.split(separator: "/").last.map(String.init) ?? c
            s += " " + name
            if let f = state.fraction { s += String(format: " %.0f%%", f * 100) }
        }
        if s.count > width - 1 { s = String(s.prefix(width - 1)) }
        _ = PosixIO.writeAll(STDERR_FILENO, Array(s.utf8))
        visible = true
    }
}
