/// The room the scratch frame caches of one process share (a video's scaled frames for its second
/// pass, an animation's canvases for its tries). Jobs side by side each sized their cache from the
/// same free space and memory, so eight of them could fill twice a quarter of the scratch disk, and a
/// full disk fails the other jobs' outputs; together they now stay within one `limit`.
final class FrameCacheBudget: Sendable {
    static let shared = FrameCacheBudget()

    private let fixedLimit: Int?
    private let held = Locked(0)

    /// - Parameter limit: the room, where not the machine's at each reservation (tests).
    init(limit: Int? = nil) { fixedLimit = limit }

    /// Takes `bytes` when what the caches hold stays within the limit (the machine's now, for caches
    /// in `scratch`, unless fixed).
    func reserve(_ bytes: Int, scratch: String) -> Bool {
        let limit = fixedLimit ?? Self.limit(scratch: scratch)
        return held.withLock { h in
            guard bytes <= limit - h else { return false }
            h += bytes
            return true
        }
    }

    func release(_ bytes: Int) { held.withLock { $0 -= bytes } }

    /// Bytes reserved now.
    var reserved: Int { held.withLock { $0 } }

    /// 2 GiB, or up to 8 GiB where the kernel lets that much be written without waiting for the disk
    /// (`dirtyShare` of the memory available, vm.dirty_ratio: 20 % by default), so the first pass is
    /// not held to the disk's pace and the frames come back from the page cache; never more than a
    /// quarter of the scratch folder's free space. A 30 s 4K HEVC clip fitted to 20,000,000 bytes at
    /// 1080p (2.8 GB of frames): 41.1 s decoding it twice, 34.0 s from the cache.
    static func limit(availableMemory: Int?, freeDisk: Int?, dirtyShare: Double = 0.2) -> Int {
        let memory = min(8 << 30, max(2 << 30, Int(Double(availableMemory ?? 0) * max(0, min(1, dirtyShare)))))
        return min(memory, (freeDisk ?? .max) / 4)
    }

    /// The limit on this machine now, for caches in `scratch`.
    static func limit(scratch: String) -> Int {
        let dirty = PosixIO.kernelFile("/proc/sys/vm/dirty_ratio")?.split(separator: "\n").first.flatMap { Double($0) }
        return limit(availableMemory: PosixIO.availableMemory(), freeDisk: PosixIO.freeSpace(scratch), dirtyShare: (dirty ?? 20) / 100)
    }
}
