import CFFmpeg
import Glibc

/// A time bound on everything libavformat does with one input (probing, reading packets): its
/// blocking loops poll the callback, which answers 1 (AVERROR_EXIT follows) once the moment passes.
final class Deadline {
    private let microseconds: UnsafeMutablePointer<Int64>

    init(seconds: Double) {
        microseconds = .allocate(capacity: 1)
        microseconds.initialize(to: 0)
        reset(seconds: seconds)
    }

    deinit { microseconds.deallocate() }

    /// From now, `seconds` more.
    func reset(seconds: Double) { microseconds.pointee = Self.now() + Int64(seconds * 1e6) }

    var passed: Bool { Self.now() > microseconds.pointee }

    /// For `AVFormatContext.interrupt_callback`; valid while this object lives (the input holds it).
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(callback: { opaque in
            guard let limit = opaque?.assumingMemoryBound(to: Int64.self).pointee else { return 0 }
            return limit > 0 && Deadline.now() > limit ? 1 : 0
        }, opaque: UnsafeMutableRawPointer(microseconds))
    }

    static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }
}
