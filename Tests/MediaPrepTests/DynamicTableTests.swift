import Glibc
import Testing
@testable import MediaPrep

/// The one loader behind every library opened on first use: what it fills, and how it refuses.
@Suite struct DynamicTableTests {
    /// Two entry points of libc, in the order they are named.
    typealias Pair = (strlen: @convention(c) (UnsafePointer<CChar>) -> Int, abs: @convention(c) (Int32) -> Int32)

    /// Runs `body` with NULL-terminated C lists of `libraries` and `symbols`.
    func withLists<R>(_ libraries: [String], _ symbols: [String],
                      _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        func list(_ names: [String]) -> [UnsafePointer<CChar>?] { names.map { UnsafePointer(strdup($0)) } + [nil] }
        let (l, s) = (list(libraries), list(symbols))
        defer { for p in l + s { free(UnsafeMutablePointer(mutating: p)) } }
        return l.withUnsafeBufferPointer { lp in s.withUnsafeBufferPointer { sp in body(lp.baseAddress!, sp.baseAddress!) } }
    }

    func load(_ libraries: [String], _ symbols: [String]) -> Result<Pair, MediaPrepError> {
        withLists(libraries, symbols) { DynamicTable.load($0, $1, as: Pair.self, failing: .codecUnavailable, "the test's library is") }
    }

    @Test func fillsTheTableInOrder() throws {
        let t = try load(["libc.so.6"], ["strlen", "abs"]).get()
        #expect(t.strlen("mediaprep") == 9)
        #expect(t.abs(-7) == 7)
    }

    @Test func looksInEachLibraryInTurn() throws {
        // strlen is libc's, not libm's: the second library answers.
        let t = try load(["libm.so.6", "libc.so.6"], ["strlen", "abs"]).get()
        #expect(t.strlen("ab") == 2)
    }

    @Test func aMissingLibraryIsCodecUnavailable() {
        guard case .failure(let e) = load(["libmediaprep-none.so.9"], ["strlen", "abs"]) else {
            Issue.record("loaded a library that does not exist")
            return
        }
        #expect(e.code == .codecUnavailable)
        #expect(e.message.contains("cannot load libmediaprep-none.so.9"))
    }

    @Test func aMissingSymbolIsNamed() {
        guard case .failure(let e) = load(["libc.so.6"], ["strlen", "mediaprep_no_such_function"]) else {
            Issue.record("filled a table with a symbol that does not exist")
            return
        }
        #expect(e.message.contains("missing symbol mediaprep_no_such_function"))
    }

    @Test func namesThatDoNotMatchTheTableAreRefused() {
        guard case .failure(let e) = load(["libc.so.6"], ["strlen"]) else {
            Issue.record("filled a two-member table from one name")
            return
        }
        #expect(e.message.contains("internal"))
    }
}
