import UploadPlanner

extension SendCheck {
    /// The results as SARIF 2.1.0, how GitHub code scanning and other CI dashboards take findings:
    /// one rule per outcome code, `error` for what cannot be sent, `warning` for what sending would
    /// change, each located at its file; files that go as they are give no result.
    public static func sarif(_ results: [Result], toolVersion: String) -> JSONValue {
        var rules: [String] = []
        var ruleLevel: [String: String] = [:]
        var findings: [JSONValue] = []
        for r in results where r.verdict != .asIs {
            let level = r.verdict == .cannotSend ? "error" : "warning"
            if ruleLevel[r.code] == nil { rules.append(r.code); ruleLevel[r.code] = level }
            findings.append(.object([
                .init("ruleId", .string(r.code)), .init("ruleIndex", .int(rules.firstIndex(of: r.code) ?? 0)),
                .init("level", .string(level)),
                .init("message", .object([.init("text", .string(r.reasons.joined(separator: "; ")))])),
                .init("locations", .array([.object([.init("physicalLocation", .object([
                    .init("artifactLocation", .object([.init("uri", .string(uri(r.input)))])),
                ]))])])),
            ]))
        }
        let descriptors: [JSONValue] = rules.map { code in
            let cannot = ruleLevel[code] == "error"
            return .object([
                .init("id", .string(code)),
                .init("shortDescription", .object([.init("text", .string(cannot ? "cannot be sent: \(code)" : "changed when sent: \(code)"))])),
                .init("defaultConfiguration", .object([.init("level", .string(ruleLevel[code] ?? "warning"))])),
            ])
        }
        return .object([
            .init("$schema", .string("https://json.schemastore.org/sarif-2.1.0.json")),
            .init("version", .string("2.1.0")),
            .init("runs", .array([.object([
                .init("tool", .object([.init("driver", .object([
                    .init("name", .string("mediaprep")), .init("version", .string(toolVersion)),
                    .init("rules", .array(descriptors)),
                ]))])),
                .init("results", .array(findings)),
            ])])),
        ])
    }

    /// A path as a relative URI reference (percent-encoded where a URI needs it), as SARIF locates files.
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in (path.hasPrefix("./") ? String(path.dropFirst(2)) : path).utf8 {
            let c = Character(Unicode.Scalar(byte))
            if c.isASCII && (c.isLetter || c.isNumber || "-._~/".contains(c)) { out.append(c) } else { out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2) }
        }
        return out
    }
}

extension String {
    /// Zeros put before a number's digits up to `n` characters (`%0A`, a DICOM tag's `0008`).
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
