/// The room the frame caches of one process share. Jobs side by side each sized their cache from the
/// same free space and memory, so eight of them could fill twice a quarter of the scratch disk, and a
/// full disk fails the other jobs' outputs; together they now stay within one `FrameCache.limit`.
final class FrameCacheBudget: Sendable {
    static let shared = FrameCacheBudget()

    private let fixedLimit: Int?
    private let held = Locked(0)

    /// - Parameter limit: the room, where not the machine's at each reservation (tests).
    init(limit: Int? = nil) { fixedLimit = limit }

    /// Takes `bytes` when what the caches hold stays within the limit (`machine`, unless fixed).
    func reserve(_ bytes: Int, within machine: () -> Int) -> Bool {
        let limit = fixedLimit ?? machine()
        return held.withLock { h in
            guard bytes <= limit - h else { return false }
            h += bytes
            return true
        }
    }

    func release(_ bytes: Int) { held.withLock { $0 -= bytes } }

    /// Bytes reserved now.
    var reserved: Int { held.withLock { $0 } }
}
