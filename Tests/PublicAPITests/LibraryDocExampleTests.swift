import Foundation
import Testing

/// docs/library.md's example is the code `LibraryDocExample.swift` compiles: they cannot drift apart.
@Suite struct LibraryDocExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theDocsExampleIsTheCompiledOne() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/library.md"), encoding: .utf8)
        let compiled = try String(contentsOf: Self.root.appendingPathComponent("Tests/PublicAPITests/LibraryDocExample.swift"), encoding: .utf8)
        let afterMarker = try #require(doc.range(of: "The example below is compiled")).upperBound
        let fenceStart = try #require(doc.range(of: "```swift\n", range: afterMarker..<doc.endIndex)).upperBound
        let fenceEnd = try #require(doc.range(of: "```", range: fenceStart..<doc.endIndex)).lowerBound
        let docBody = doc[fenceStart..<fenceEnd].split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("import ") }.map(String.init).joined(separator: "\n").trimmingCharacters(in: .newlines)
        let begin = try #require(compiled.range(of: "    // BEGIN docs/library.md\n")).upperBound
        let end = try #require(compiled.range(of: "    // END docs/library.md")).lowerBound
        let compiledBody = compiled[begin..<end].split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n").trimmingCharacters(in: .newlines)
        #expect(docBody == compiledBody)
    }
}
