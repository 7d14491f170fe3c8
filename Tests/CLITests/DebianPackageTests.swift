import Foundation
import Testing

/// `scripts/make-deb.sh` in this checkout: the package's version is the binary's, and its Depends name
/// the package of every library the binary links (ldd) and opens on first use. A release build, so only
/// when asked (MEDIAPREP_DEB_TEST=1): CI runs it after the suite (`scripts/qa/check-deb.sh`), never
/// beside the suite's timed tests.
@Suite struct DebianPackageTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["MEDIAPREP_DEB_TEST"] == "1" }

    @Test(.enabled(if: DebianPackageTests.enabled)) func packageDependsOnEveryLibraryItUses() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Its own build folder: this test runs while `swift test` holds .build.
        let build = PreCommitTests.repository + "/.build-deb"
        let made = try runTool(["bash", PreCommitTests.repository + "/scripts/make-deb.sh", dir], env: ["MEDIAPREP_BUILD_PATH": build])
        #expect(made.status == 0, "\(made.stdout.suffix(2000))")
        let deb = try #require(made.stdout.split(separator: "\n").last { $0.hasSuffix(".deb") }.map(String.init))
        #expect(deb.hasSuffix(".deb") && FileManager.default.fileExists(atPath: deb))
        func field(_ name: String) throws -> String {
            try runTool(["dpkg-deb", "-f", deb, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let release = build + "/release/mediaprep"
        let version = try runTool([release, "--version"]).stdout
        #expect(version == "mediaprep \(try field("Version"))\n")
        let depends = Set(try field("Depends").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        // Every library ldd lists is owned by a package in Depends.
        let ldd = try runTool(["ldd", release]).stdout
        for line in ldd.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard let path = parts.first(where: { $0.hasPrefix("/") }).map(String.init) else { continue }
            // Debian 12 merged /usr: dpkg knows a library by one of its two paths.
            let real = try runTool(["dpkg", "-S", URL(fileURLWithPath: path).resolvingSymlinksInPath().path])
            let given = try runTool(["dpkg", "-S", path])
            let owner = real.status == 0 ? real.stdout : given.stdout
            #expect(real.status == 0 || given.status == 0, "no package owns \(path)")
            let package = owner.split(separator: ":").first.map(String.init) ?? ""
            #expect(depends.contains(package), "\(path) belongs to \(package), not in Depends \(depends)")
        }
        // And those it opens when an input needs them.
        for needed in ["libavcodec59", "libavformat59", "libavfilter8", "libcurl4", "liblcms2-2", "libheif1", "libwebpdemux2", "libwebp7", "libdeflate0", "libtiff6", "libraw20"] {
            #expect(depends.contains(needed), "\(needed) missing from \(depends)")
        }
    }
}
