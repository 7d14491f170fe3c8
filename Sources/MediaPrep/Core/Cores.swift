import FoundationEssentials
import Glibc

/// The cores this process may really use: its CPU affinity (`taskset`, a pinned engine worker) and
/// its cgroup's CPU quota (a Kubernetes pod with `cpu: 1` on a 64-core node gets 1), never more than
/// the machine has. Foundation's count is the machine's, which oversubscribes such a task.
package enum Cores {
    package static let available: Int = {
        // sysconf, not ProcessInfo: that reads the cgroup's files through URL and Data, which
        // `quota` below reads anyway (callgrind: 0.15 million instructions of every `check`).
        let machine = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return max(1, min(machine, affinity ?? machine, quota ?? machine))
    }()

    private typealias GetAffinity = @convention(c) (Int32, Int, UnsafeMutableRawPointer?) -> Int32

    /// Bits set in `sched_getaffinity`'s mask (glibc declares it only under `_GNU_SOURCE`).
    private static var affinity: Int? {
        guard let call = PosixIO.symbol("sched_getaffinity", as: GetAffinity.self) else { return nil }
        var mask = [UInt64](repeating: 0, count: 16)  // 1024 CPUs
        let ok = mask.withUnsafeMutableBytes { call(0, $0.count, $0.baseAddress) } == 0
        return ok ? mask.reduce(0) { $0 + $1.nonzeroBitCount } : nil
    }

    /// cgroup v2's `cpu.max` ("150000 100000": 1.5 CPUs, rounded up), or v1's quota and period.
    private static var quota: Int? {
        func read(_ p: String) -> String? { PosixIO.kernelFile(p)?.trimmingWhitespace() }
        if let max = read("/sys/fs/cgroup/cpu.max")?.split(separator: " "), max.count == 2, let q = Double(max[0]), let p = Double(max[1]), p > 0 {
            return Int((q / p).rounded(.up))
        }
        if let q = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").flatMap(Double.init), q > 0,
           let p = read("/sys/fs/cgroup/cpu/cpu.cfs_period_us").flatMap(Double.init), p > 0 {
            return Int((q / p).rounded(.up))
        }
        return nil
    }
}
