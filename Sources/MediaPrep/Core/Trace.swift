import FoundationEssentials
import Glibc
import Dispatch

/// Stage timings on stderr when MEDIAPREP_TRACE is set; how the pipeline's costs were measured.
///
/// A stage inside another is indented two spaces per level, so the unindented lines add up to the
/// whole run (`scripts/trace-coverage.py` checks that they cover ≥ 90 % of wall time per image).
package enum Trace {
    static let enabled = Environment.value("MEDIAPREP_TRACE") != nil
    private static let state = State()

    /// Runs `body` as a stage named `label`, timing it when tracing is on.
    @discardableResult
    package static func time<T>(_ label: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let level = state.enter()
        defer { state.leave() }
        let start = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        emit(level, label(), ms)
        return r
    }

    /// Times `body` as a note, without nesting: for work done on whichever thread needs it first.
    static func noteTime<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        note(label + String(printf: " in %.1f ms", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6))
        return r
    }

    package static func note(_ s: @autoclosure () -> String) {
        guard enabled else { return }
        let indent = String(repeating: "  ", count: state.depth)
        PosixIO.writeStandardError("trace \(indent)\(s())\n")
    }

    /// The time before `main` (exec, loading and linking 60 shared libraries) as a stage of its own.
    /// When MEDIAPREP_TRACE holds the caller's CLOCK_MONOTONIC reading in nanoseconds, taken just
    /// before it spawned us (scripts/trace-coverage.py does this), that is wall time from the spawn;
    /// otherwise the process's CPU time so far, which that CPU-bound work nearly equals.
    package static func startup() {
        guard enabled else { return }
        state.mainStarted(at: DispatchTime.now().uptimeNanoseconds)
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        let now = UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
        // A reading from the last minute is a spawn time; anything else ("1") just turns tracing on.
        if let spawned = Environment.value("MEDIAPREP_TRACE").flatMap(UInt64.init),
           spawned < now, now - spawned < 60_000_000_000 {
            emit(0, "startup (spawn to main)", Double(now - spawned) / 1e6)
            return
        }
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        emit(0, "startup (before main, CPU)", Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6)
    }

    /// From `startup()` to here: handing the command to a task (the runtime's thread pool starts).
    package static func commandStarted() {
        guard enabled, let start = state.mainStart else { return }
        emit(0, "start the command task", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }

    private static func emit(_ level: Int, _ label: String, _ ms: Double) {
        let name = String(repeating: "  ", count: level) + label
        var line = "trace " + name.padded(to: 34) + String(printf: " %8.1f ms\n", ms)
        if withMemory, let kib = PosixIO.peakResidentKiB() {
            line += "trace " + String(repeating: "  ", count: level) + String(printf: "  peak resident %.1f MiB\n", Double(kib) / 1024)
        }
        PosixIO.writeStandardError(line)
    }

    /// MEDIAPREP_TRACE_MEMORY=1 adds the peak resident size after each stage (how memory per
    /// megapixel was measured); its lines do not end in "ms", so timing parsers skip them.
    private static let withMemory = Environment.value("MEDIAPREP_TRACE_MEMORY") != nil


    /// Nesting level (stages run on one thread at a time; parallel jobs inside a stage are not
    /// traced) and when `main` began.
    private final class State: Sendable {
        private let value = Locked<(level: Int, start: UInt64?)>((0, nil))
        var depth: Int { value.withLock { $0.level } }
        var mainStart: UInt64? { value.withLock { $0.start } }
        func mainStarted(at t: UInt64) { value.withLock { $0.start = t } }
        func enter() -> Int { value.withLock { $0.level += 1; return $0.level - 1 } }
        func leave() { value.withLock { $0.level -= 1 } }
    }
}
