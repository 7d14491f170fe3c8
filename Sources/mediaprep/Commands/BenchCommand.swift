import Foundation
import MediaPrep
import UploadPlanner

/// `mediaprep bench`: in-process image preparation throughput over a folder.
struct BenchCommand: Command {
    static let name = "bench"
    static let summary = "measure image preparation throughput over a folder (default: testdata)"
    static let usage = "bench [DIR] [--profile simplex|bluesky] [--repeat N] [--json] | bench --plans N [--json]"
    static let options = [
        OptionSpec(names: ["--profile"], value: "NAME", help: "simplex (default) or bluesky"),
        OptionSpec(names: ["--repeat"], value: "N", help: "passes over the folder (default 1)"),
        OptionSpec(names: ["--plans"], value: "N", help: "instead: time N transfer plans (UploadPlanner) in-process"),
        OptionSpec(names: ["--json"], value: nil, help: "print one JSON document"),
    ]

    let dir: String, profile: ImageProfile, repeats: Int, json: Bool, plans: Int?

    init(_ a: ParsedArguments) throws {
        guard a.positionals.count <= 1 else { throw UsageError(message: "bench takes at most one DIR") }
        dir = a.positionals.first ?? "testdata"
        let name = a.value("--profile") ?? "simplex"
        guard let p = ImageProfile.named(name) else { throw UsageError(message: "unknown profile \(name)") }
        profile = p
        repeats = Int(try a.int("--repeat", min: 1) ?? 1)
        plans = try a.int("--plans", min: 1).map(Int.init)
        json = a.has("--json")
    }

    func run() -> Int32 {
        if let n = plans { return benchPlans(n) }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
            Output.error("cannot read folder \(dir)")
            return 1
        }
        let files = names.sorted().map { dir + "/" + $0 }.filter { p in
            (try? FormatSniffer.sniff(FileBytes.head(p)))?.isImage == true
        }
        var times: [Double] = []
        var megapixels = 0.0
        var failures = 0
        var over = 0
        let preparer = ImagePreparer(profile: profile)
        for _ in 0..<repeats {
            for f in files {
                let start = DispatchTime.now().uptimeNanoseconds
                do {
                    let p = try preparer.prepare(path: f)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    times.append(ms)
                    if p.data.count > profile.maxBytes { over += 1 }
                    if let probe = try? MediaProbe.probe(path: f, thorough: false), let w = probe.width, let h = probe.height {
                        megapixels += Double(w * h) / 1e6
                    }
                } catch {
                    failures += 1
                }
            }
        }
        let total = times.reduce(0, +) / 1000
        let sorted = times.sorted()
        func pct(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))] }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peakMiB = Double(usage.ru_maxrss) / 1024
        let ips = total > 0 ? Double(times.count) / total : 0
        let mps = total > 0 ? megapixels / total : 0
        if json {
            Output.json(.object([
                .init("dir", .string(dir)), .init("images", .int(times.count)), .init("failed", .int(failures)),
                .init("overLimit", .int(over)), .init("seconds", .double((total * 1000).rounded() / 1000)),
                .init("imagesPerSecond", .double((ips * 100).rounded() / 100)), .init("megapixelsPerSecond", .double((mps * 100).rounded() / 100)),
                .init("p50Ms", .double(pct(0.5).rounded())), .init("p95Ms", .double(pct(0.95).rounded())),
                .init("peakMemoryMiB", .double(peakMiB.rounded())),
            ]))
        } else {
            Output.line(String(format: "%d images in %.2f s: %.2f images/s, %.1f megapixels/s, p50 %.0f ms, p95 %.0f ms, peak memory %.0f MiB%@",
                               times.count, total, ips, mps, pct(0.5), pct(0.95), peakMiB,
                               failures > 0 ? " (\(failures) failed)" as NSString : "" as NSString))
        }
        return failures > 0 || over > 0 ? 1 : 0
    }

    /// Plans per second over sizes from 0 to 1 GiB, every kind, 1–64 recipients, with and without XFTP.
    func benchPlans(_ n: Int) -> Int32 {
        let kinds = UploadContentKind.allCases
        let planners = [TransferPlanner(), TransferPlanner(xftpAvailable: false)]
        var rng = SystemRandomNumberGenerator()
        let sizes = (0..<4096).map { _ in Int64.random(in: 0...1_073_741_824, using: &rng) }
        var checksum: Int64 = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for i in 0..<n {
            let p = planners[i & 1].plan(size: sizes[i & 4095], kind: kinds[i % kinds.count],
                                         fileName: "IMG_20261122_120000.jpg", recipients: 1 + i % 64)
            checksum &+= p.encryptedSize &+ Int64(p.chunkSizes.count)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let rate = Double(n) / max(seconds, 1e-9)
        if json {
            Output.json(.object([.init("plans", .int(n)), .init("seconds", .double((seconds * 1e4).rounded() / 1e4)),
                                 .init("plansPerSecond", .double(rate.rounded())), .init("checksum", .int(checksum))]))
        } else {
            Output.line(String(format: "%d plans in %.3f s: %.0f plans/s (%.0f ns each)", n, seconds, rate, 1e9 / rate))
        }
        return 0
    }
}
