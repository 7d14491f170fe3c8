import Foundation
import Testing

/// contrib/dask on a real cluster: a `dask scheduler` and two single-thread `dask worker`s on
/// 127.0.0.1 (the pinned versions install-deps.sh puts in .venv/dask), 40 inputs in 8 shards, one
/// worker killed with SIGKILL while shards run. Dask reruns its shard elsewhere; `--resume` makes
/// that finish the shard, so every input has exactly one complete output and one manifest line.
@Suite(.serialized) struct DaskRecipeTests {
    static let root = URL(fileURLWithPath: testdata).deletingLastPathComponent().path
    static let venv = root + "/.venv/dask/bin"

    /// A free TCP port on 127.0.0.1 (bound, read, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    static func start(_ args: [String], log: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: args[0])
        p.arguments = Array(args.dropFirst())
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = FileHandle(forWritingAtPath: log)
        p.standardOutput = handle
        p.standardError = handle
        try p.run()
        return p
    }

    @Test func aKilledWorkerLeavesExactlyOneOutputPerInput() throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.venv + "/dask"), "run scripts/install-deps.sh: it makes .venv/dask")
        guard FileManager.default.isExecutableFile(atPath: Self.venv + "/dask") else { return }
        let work = try scratch()
        defer { try? FileManager.default.removeItem(atPath: work) }
        let corpus = work + "/archive", out = work + "/out"
        // 10 folders with the same four names: equal names in different folders.
        var inputs: [String] = []
        for i in 0..<10 {
            let dir = corpus + "/trip\(i)/day"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            for (name, fixture) in [("beach.jpg", "photo.jpg"), ("small.jpg", "small.jpg"), ("chart.png", "rgb.png"), ("note.m4a", "voice.m4a")] {
                try FileManager.default.copyItem(atPath: testdata + "/" + fixture, toPath: dir + "/" + name)
                inputs.append("trip\(i)/day/" + name)
            }
        }
        let port = try Self.freePort()
        let address = "tcp://127.0.0.1:\(port)"
        let started = Date()
        let scheduler = try Self.start([Self.venv + "/dask", "scheduler", "--host", "127.0.0.1", "--port", "\(port)", "--no-dashboard"],
                                       log: work + "/scheduler.log")
        var workers: [Process] = []
        defer {
            for p in workers + [scheduler] where p.isRunning { kill(p.processIdentifier, SIGKILL); p.waitUntilExit() }
        }
        for i in 0..<2 {
            workers.append(try Self.start([Self.venv + "/dask", "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                                           "--name", "w\(i)"], log: work + "/worker\(i).log"))
        }
        let ready = try runTool([Self.venv + "/python", "-c",
                                 "from dask.distributed import Client; c = Client('\(address)', timeout=60); c.wait_for_workers(2, timeout=60); print('ready')"])
        #expect(ready.stdout.contains("ready"), "\(ready.stdout)")
        let recipe = try Self.start([Self.venv + "/python", Self.root + "/contrib/dask/mediaprep_dask.py", corpus, "--out", out, "--shards", "8",
                                     "--scheduler", address, "--mediaprep", binary, "--no-progress"], log: work + "/recipe.log")
        // Once some shards have written results, kill a worker mid-run.
        var waited = 0
        func linesDone() -> Int {
            let dir = out + "/.manifests"
            return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).reduce(0) { n, f in n + linesIn(dir + "/" + f) }
        }
        while linesDone() < 3, waited < 6000, recipe.isRunning { usleep(10_000); waited += 1 }
        #expect(linesDone() < inputs.count, "the run ended before a worker could be killed")
        kill(workers[0].processIdentifier, SIGKILL)
        workers[0].waitUntilExit()
        recipe.waitUntilExit()
        let log = (try? String(contentsOfFile: work + "/recipe.log", encoding: .utf8)) ?? ""
        #expect(recipe.terminationStatus == 0, "\(log)")
        print("Dask recipe: 40 inputs, 8 shards, one of two workers killed: \(String(format: "%.1f", Date().timeIntervalSince(started))) s with the cluster's start")
        // Exactly one complete output per input, nothing else.
        let made = (FileManager.default.enumerator(atPath: out)?.allObjects as? [String] ?? []).filter { p in
            !p.hasPrefix(".manifests") && p != "manifest.jsonl" && !InputWalkerDir.isDir(out + "/" + p)
        }.sorted()
        let expected = inputs.map { $0 + "." + ($0.hasSuffix(".m4a") ? "m4a" : $0.hasSuffix(".png") ? "png" : "jpg") }.sorted()
        #expect(made == expected, "\(made)")
        let merged = try String(contentsOfFile: out + "/manifest.jsonl", encoding: .utf8).split(separator: "\n")
        let records = try merged.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(records.count == inputs.count)
        #expect(Set(records.compactMap { $0["input"] as? String }).count == inputs.count)
        #expect(records.allSatisfy { $0["error"] is NSNull })
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((log.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        #expect(summary["inputs"] as? Int == inputs.count && summary["failed"] as? Int == 0)
    }
}

private enum InputWalkerDir {
    static func isDir(_ p: String) -> Bool {
        var d: ObjCBool = false
        return FileManager.default.fileExists(atPath: p, isDirectory: &d) && d.boolValue
    }
}
