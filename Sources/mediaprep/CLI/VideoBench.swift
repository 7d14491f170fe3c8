import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// `bench --video`: each video's budgeted transcode timed beside its floor, the same frames decoded
/// and scaled to the same size with nothing encoded, in alternating order round by round (the
/// machine's load shared), as ratios.
extension BenchCommand {
    func benchVideo() -> Int32 {
        let files = InputWalker.expand([dir]).filter { p in (try? FormatSniffer.sniff(FileBytes.head(p, count: 1 << 12)))?.isAudioVisual == true }
        guard !files.isEmpty else {
            Output.error("no videos in \(dir)")
            return 1
        }
        let scratch = OutputWriter.temporaryDirectory + "mediaprep-bench-video-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var rows: [JSONValue] = []
        var failed = false
        for file in files {
            var transcodes: [Double] = [], floors: [Double] = []
            var made: (width: Int, height: Int, bytes: Int, fps: Double, route: String)? = nil
            do {
                for round in 0..<max(2, repeats) {
                    // Round 0 transcodes first (the floor needs its size); then the order alternates.
                    for step in round % 2 == 0 ? [0, 1] : [1, 0] {
                        let start = Date()
                        if step == 0 {
                            var preparer = AttachmentPreparer(profile: profile, outputDirectory: scratch + "/\(round)", timestamp: 0)
                            preparer.media.videoMaxBytes = videoMaxBytes
                            let item = preparer.prepare(path: file)
                            transcodes.append(Date().timeIntervalSince(start))
                            if let e = item.error { throw e }
                            guard let out = item.output, let w = item.width, let h = item.height, let bytes = item.bytes else {
                                throw MediaPrepError(.encodeFailed, "no video was made")
                            }
                            let fps = (try? MediaProbe.probe(path: out, thorough: false))?.frameRate ?? 30
                            made = (w, h, bytes, fps, item.route?.rawValue ?? "?")
                        } else if let m = made {
                            _ = try VideoFloor.run(source: file, width: m.width, height: m.height, maxFrameRate: m.fps)
                            floors.append(Date().timeIntervalSince(start))
                        }
                    }
                }
            } catch {
                Output.error("\(file): \(error)")
                failed = true
                continue
            }
            guard let m = made, !floors.isEmpty else { continue }
            let t = transcodes.sorted()[transcodes.count / 2], f = floors.sorted()[floors.count / 2]
            let ratios = zip(transcodes, floors).map { $0 / max($1, 1e-9) }
            if json {
                rows.append(.object([
                    .init("path", .string(file)), .init("width", .int(m.width)), .init("height", .int(m.height)),
                    .init("bytes", .int(m.bytes)), .init("budget", .int(videoMaxBytes)), .init("route", .string(m.route)),
                    .init("transcodeSeconds", .double((t * 1000).rounded() / 1000)), .init("floorSeconds", .double((f * 1000).rounded() / 1000)),
                    .init("overFloorRounds", .array(ratios.map { .double(($0 * 100).rounded() / 100) })),
                ]))
            } else {
                let rounds = ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
                let ratio = t / max(f, 1e-9)
                Output.line("\(file): \(m.width)×\(m.height), \(m.bytes) bytes of \(videoMaxBytes) (\(m.route)): prepare \(String(format: "%.2f", t)) s, "
                            + "floor (decode and scale the same frames) \(String(format: "%.2f", f)) s: \(String(format: "%.2f", ratio))× the floor (rounds: \(rounds))")
            }
        }
        if json { Output.json(.object([.init("videos", .array(rows))])) }
        return failed ? 1 : 0
    }
}
