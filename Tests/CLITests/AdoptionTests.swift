import Foundation
import TestSupport
import Testing

/// What CI users adopt the tool through: SARIF for code scanning, the version, shell completions.
@Suite struct AdoptionTests {
    @Test func sarifIsValidAgainstThePublishedSchema() throws {
        let r = try run(["check", testdata + "/voice-long.ogg", testdata + "/photo.jpg", testdata + "/small.jpg",
                         testdata + "/truncated.mp4", "--audio-as", "voice", "--format", "sarif"])
        #expect(r.status == 1)  // two cannot be sent
        let schema = try JSONSchema(data: Data(contentsOf: URL(fileURLWithPath: testdata + "/sarif-schema-2.1.0.json")))
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        let failures = schema.validate(doc)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        // One rule per code; an error for what cannot go, a warning for what changes; small.jpg goes as it is.
        let run0 = try #require(((doc as? [String: Any])?["runs"] as? [[String: Any]])?.first)
        let results = try #require(run0["results"] as? [[String: Any]])
        let byRule = Dictionary(results.map { ($0["ruleId"] as? String ?? "", $0["level"] as? String ?? "") }, uniquingKeysWith: { a, _ in a })
        #expect(byRule == ["voiceTooLong": "error", "truncated": "error", "reencoded": "warning"])  // truncated.mp4 lost its index
        let uris = results.compactMap { (($0["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any])
            .flatMap { ($0["artifactLocation"] as? [String: Any])?["uri"] as? String } }
        #expect(uris.count == 3 && uris.allSatisfy { $0.hasSuffix(".ogg") || $0.hasSuffix(".jpg") || $0.hasSuffix(".mp4") })
        let rules = try #require(((run0["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        #expect(rules.count == 3)
    }

    @Test func theValidatorRejectsWhatTheSchemaForbids() throws {
        let schema = try JSONSchema(data: Data(contentsOf: URL(fileURLWithPath: testdata + "/sarif-schema-2.1.0.json")))
        #expect(schema.validate(["version": "2.1.0", "runs": []] as [String: Any]).isEmpty)
        #expect(!schema.validate(["version": "2.0.0", "runs": []] as [String: Any]).isEmpty)
        #expect(!schema.validate(["version": "2.1.0"] as [String: Any]).isEmpty)
        #expect(!schema.validate(["version": "2.1.0", "runs": [["results": []]]] as [String: Any]).isEmpty)  // a run needs its tool
        let badLevel: [String: Any] = ["version": "2.1.0", "runs": [["tool": ["driver": ["name": "x"]],
                                                                      "results": [["message": ["text": "m"], "level": "fatal"]]]]]
        #expect(!schema.validate(badLevel).isEmpty)
    }

    @Test func versionIsOneLine() throws {
        let r = try run(["--version"])
        #expect(r.status == 0 && r.stdout == "mediaprep 0.7.0\n")
    }

    /// Sourced into a real bash and asked as the shell asks on Tab.
    @Test func bashCompletesCommandsAndValues() throws {
        let script = try run(["completions", "bash"])
        #expect(script.status == 0)
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try script.stdout.write(toFile: dir + "/c.bash", atomically: true, encoding: .utf8)
        func complete(_ words: [String]) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let r = try runTool(["bash", "-c", "source '\(dir)/c.bash'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _mediaprep; printf '%s\\n' \"${COMPREPLY[@]}\""])
            return r.stdout.split(separator: "\n").map(String.init)
        }
        #expect(try complete(["mediaprep", "ch"]) == ["check"])
        #expect(try complete(["mediaprep", "check", "--profile", ""]) == ["simplex", "bluesky"])
        #expect(try complete(["mediaprep", "check", "--format", "s"]) == ["sarif"])
        #expect(try complete(["mediaprep", "prepare", "--audio-as", ""]) == ["auto", "voice", "file"])
        #expect(try complete(["mediaprep", "check", "--st"]) == ["--strict"])
    }

    /// fish asked as it asks on Tab (`complete -C`); zsh parses its script (`zsh -n`).
    @Test func fishCompletesAndZshParses() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for shell in ["fish", "zsh"] {
            try run(["completions", shell]).stdout.write(toFile: "\(dir)/c.\(shell)", atomically: true, encoding: .utf8)
        }
        let fish = try runTool(["fish", "-c", "source \(dir)/c.fish; complete -C 'mediaprep ch'; complete -C 'mediaprep check --profile '"])
        #expect(fish.status == 0, "\(fish.stdout)")
        let words = fish.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        #expect(words == ["check", "bluesky", "simplex"], "\(fish.stdout)")
        let zsh = try runTool(["zsh", "-n", "\(dir)/c.zsh"])
        #expect(zsh.status == 0, "\(zsh.stdout)")
    }

    @Test func zshAndFishScriptsNameEveryCommand() throws {
        for shell in ["zsh", "fish"] {
            let r = try run(["completions", shell])
            #expect(r.status == 0)
            for c in ["prepare", "check", "plan", "completions"] { #expect(r.stdout.contains(c)) }
            #expect(r.stdout.contains("simplex") && r.stdout.contains("bluesky"))
        }
        #expect(try run(["completions", "tcsh"]).status == 2)
    }
}
