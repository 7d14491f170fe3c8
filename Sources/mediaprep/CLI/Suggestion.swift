/// "did you mean": the closest known word within a small edit distance (`prepar` → `prepare`,
/// `--max-byte` → `--max-bytes`).
enum Suggestion {
    static func closest(to word: String, in candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }

    /// " (did you mean --max-bytes?)", or nothing.
    static func hint(_ word: String, _ candidates: [String]) -> String {
        closest(to: word, in: candidates).map { " (did you mean \($0)?)" } ?? ""
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let old = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = old
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

/// `5MB`, `1.5GiB`, `261120`: a byte count as people write it (SI and binary units, B optional).
enum ByteSize {
    static func parse(_ s: String) -> Int64? {
        // Trimmed by hand: Foundation's trimmingCharacters bridges through NSString, 19 % of
        // `plan --size 1000`'s instructions (callgrind).
        let t = s.drop { $0 == " " || $0 == "\t" }
        let digits = t.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        guard !digits.isEmpty, let value = Double(digits), value >= 0 else { return nil }
        var unit = t.dropFirst(digits.count).drop { $0 == " " || $0 == "\t" }
        while let last = unit.last, last == " " || last == "\t" { unit = unit.dropLast() }
        let lower = unit.lowercased()
        let f: Double
        switch lower {
        case "", "b": f = 1
        case "k", "kb": f = 1e3
        case "m", "mb": f = 1e6
        case "g", "gb": f = 1e9
        case "t", "tb": f = 1e12
        case "kib": f = 1024
        case "mib": f = 1_048_576
        case "gib": f = 1_073_741_824
        case "tib": f = 1_099_511_627_776
        default: return nil
        }
        let bytes = (value * f).rounded()
        guard bytes <= Double(Int64.max / 2) else { return nil }
        return Int64(bytes)
    }
}
