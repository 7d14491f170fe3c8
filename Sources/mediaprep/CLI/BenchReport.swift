import FoundationEssentials
import Glibc
import MediaPrep
import UploadPlanner

/// One image through one tool: what `bench` lists per image and plots.
struct BenchRow {
    let image: String
    let tool: String
    var bytes: Int?
    var score: Double?
    var ms: Double?
    var error: String?

    var json: JSONValue {
        .object([.init("image", .string(image)), .init("tool", .string(tool)), .init("bytes", bytes.map { .int($0) } ?? .null),
                 .init("score", score.map { .double(round4($0)) } ?? .null), .init("ms", ms.map { .double($0.rounded()) } ?? .null),
                 .init("error", error.map { .string($0) } ?? .null)])
    }
}

/// `bench`'s rows as text, and as one self-contained HTML page (no script, no network): a table, a
/// plot of quality against bytes, and one of time per tool.
enum BenchReport {
    static func table(_ rows: [BenchRow]) -> [String] {
        let name = max(5, rows.map { FilePath.lastComponent($0.image).count }.max() ?? 5)
        let tool = max(4, rows.map(\.tool.count).max() ?? 4)
        func pad(_ s: String, _ n: Int) -> String { s.padded(to: n) }
        var out = [pad("image", name) + "  " + pad("tool", tool) + "       bytes   score      ms"]
        for r in rows {
            let file = FilePath.lastComponent(r.image)
            func right(_ s: String, _ n: Int) -> String { String(repeating: " ", count: max(0, n - s.count)) + s }
            let figures = r.error.map { "  failed: \($0)" }
                ?? "  " + right(r.bytes.map { "\($0)" } ?? "-", 10) + "  " + right(r.score.map { String(format: "%.4f", $0) } ?? "-", 6)
                + "  " + right(r.ms.map { String(format: "%.0f", $0) } ?? "-", 6)
            out.append(pad(file, name) + "  " + pad(r.tool, tool) + figures)
        }
        return out
    }

    static let colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]

    static func html(rows: [BenchRow], dir: String, profile: ImageProfile, passes: [(jobs: Int, seconds: Double, images: Int)]) -> String {
        let tools = rows.reduce(into: [String]()) { if !$0.contains($1.tool) { $0.append($1.tool) } }
        func colour(_ t: String) -> String { colours[(tools.firstIndex(of: t) ?? 0) % colours.count] }
        var h = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>mediaprep bench: \(esc(dir))</title>
        <style>body{font:14px system-ui,sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}
        td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:right}td:first-child,td:nth-child(2),th:first-child,th:nth-child(2){text-align:left}
        .failed{color:#b00}svg{border:1px solid #ccc;margin:1em 0}</style></head><body>
        <h1>mediaprep bench</h1>
        <p>\(esc(dir)) — profile \(esc(profile.name)), budget \(profile.maxBytes) bytes. \(passes.map { String(format: "%d job%@: %d images in %.2f s", $0.jobs, ($0.jobs == 1 ? "" : "s"), $0.images, $0.seconds) }.joined(separator: "; ")).
        Score: SPEC §6 display-SSIM against the source.</p>

        """
        h += scatter(rows, tools: tools, colour: colour, budget: profile.maxBytes) + bars(rows, tools: tools, colour: colour)
        let failedTools = tools.filter { t in rows.filter { $0.tool == t }.allSatisfy { $0.error != nil } }
        if !failedTools.isEmpty {
            h += "<h2>Tools that failed</h2><ul>" + failedTools.map { t in
                "<li class=\"failed\">\(esc(t)): \(esc(rows.first { $0.tool == t }?.error ?? ""))</li>"
            }.joined() + "</ul>\n"
        }
        h += "<h2>Every image and tool</h2>\n<table><thead><tr><th>image</th><th>tool</th><th>bytes</th><th>score</th><th>ms</th><th>error</th></tr></thead><tbody>\n"
        for r in rows {
            h += "<tr\(r.error == nil ? "" : " class=\"failed\"")><td>\(esc(FilePath.lastComponent(r.image)))</td><td>\(esc(r.tool))</td>"
                + "<td>\(r.bytes.map { "\($0)" } ?? "")</td><td>\(r.score.map { String(format: "%.4f", $0) } ?? "")</td>"
                + "<td>\(r.ms.map { String(format: "%.0f", $0) } ?? "")</td><td>\(esc(r.error ?? ""))</td></tr>\n"
        }
        return h + "</tbody></table>\n</body></html>\n"
    }

    /// Quality against bytes, a dot per image and tool, the budget as a line.
    static func scatter(_ rows: [BenchRow], tools: [String], colour: (String) -> String, budget: Int) -> String {
        let points = rows.compactMap { r in r.bytes.flatMap { b in r.score.map { (r.tool, Double(b), $0) } } }
        let (w, h, m) = (640.0, 360.0, 50.0)
        let maxB = max(Double(budget), points.map(\.1).max() ?? 1) * 1.05
        let minS = min(0.9, (points.map(\.2).min() ?? 0.9) - 0.01), maxS = 1.0
        func x(_ b: Double) -> Double { m + b / maxB * (w - 2 * m) }
        func y(_ s: Double) -> Double { h - m - (s - minS) / (maxS - minS) * (h - 2 * m) }
        var svg = "<h2>Quality against bytes</h2>\n<svg class=\"scatter\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=\"img\">"
        svg += "<line x1=\"\(m)\" y1=\"\(h - m)\" x2=\"\(w - m)\" y2=\"\(h - m)\" stroke=\"#333\"/><line x1=\"\(m)\" y1=\"\(m)\" x2=\"\(m)\" y2=\"\(h - m)\" stroke=\"#333\"/>"
        svg += "<text x=\"\(w / 2)\" y=\"\(h - 12)\" text-anchor=\"middle\">bytes</text>"
        for f in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let b = maxB * f, s = minS + (maxS - minS) * f
            svg += "<text x=\(q(x(b))) y=\(q(h - m + 16)) text-anchor=\"middle\" font-size=\"11\">\(Int(b / 1000)) k</text>"
            svg += "<text x=\(q(m - 6)) y=\(q(y(s) + 4)) text-anchor=\"end\" font-size=\"11\">\(String(format: "%.3f", s))</text>"
        }
        svg += "<line x1=\(q(x(Double(budget)))) y1=\"\(m)\" x2=\(q(x(Double(budget)))) y2=\"\(h - m)\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
            + "<text x=\(q(x(Double(budget)) - 4)) y=\"\(m + 12)\" text-anchor=\"end\" font-size=\"11\">budget \(budget)</text>"
        svg += "<text x=\"12\" y=\"\(h / 2)\" transform=\"rotate(-90 12 \(h / 2))\" text-anchor=\"middle\">score</text>"
        for (t, b, s) in points {
            svg += "<circle cx=\(q(x(b))) cy=\(q(y(s))) r=\"4\" fill=\"\(colour(t))\"><title>\(esc(t)): \(Int(b)) bytes, \(String(format: "%.4f", s))</title></circle>"
        }
        for (i, t) in tools.enumerated() {
            svg += "<rect x=\"\(w - 200)\" y=\"\(m + Double(i) * 18 - 10)\" width=\"10\" height=\"10\" fill=\"\(colour(t))\"/><text x=\"\(w - 185)\" y=\"\(m + Double(i) * 18)\">\(esc(t))</text>"
        }
        return svg + "</svg>\n"
    }

    /// Mean milliseconds an image, per tool.
    static func bars(_ rows: [BenchRow], tools: [String], colour: (String) -> String) -> String {
        let means: [(String, Double)] = tools.compactMap { t in
            let ms = rows.filter { $0.tool == t && $0.error == nil }.compactMap(\.ms)
            return ms.isEmpty ? nil : (t, ms.reduce(0, +) / Double(ms.count))
        }
        let (w, bar, m) = (640.0, 28.0, 10.0)
        let h = m * 2 + Double(max(1, means.count)) * (bar + 8)
        let maxMs = max(1, means.map(\.1).max() ?? 1)
        var svg = "<h2>Time an image</h2>\n<svg class=\"bars\" width=\"\(Int(w))\" height=\"\(Int(h))\" viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=\"img\">"
        for (i, (t, ms)) in means.enumerated() {
            let y = m + Double(i) * (bar + 8), len = ms / maxMs * (w - 260)
            svg += "<rect x=\"200\" y=\"\(y)\" width=\(q(len)) height=\"\(bar)\" fill=\"\(colour(t))\"/>"
            svg += "<text x=\"190\" y=\"\(y + bar * 0.65)\" text-anchor=\"end\">\(esc(t))</text><text x=\(q(205 + len)) y=\"\(y + bar * 0.65)\">\(String(format: "%.0f ms", ms))</text>"
        }
        return svg + "</svg>\n"
    }

    static func q(_ v: Double) -> String { "\"" + String(format: "%.1f", v) + "\"" }

    static func esc(_ s: String) -> String {
        FileNameBytes.display(s).replacing("&", with: "&amp;").replacing("<", with: "&lt;")
            .replacing(">", with: "&gt;").replacing("\"", with: "&quot;")
    }
}
