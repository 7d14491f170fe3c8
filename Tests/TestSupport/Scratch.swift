import Foundation

/// Scratch folders for tests, all inside one folder of this test process that is removed when the
/// process exits: a test that fails before its own cleanup, or has none, leaves nothing behind.
public enum Scratch {
    /// `TMPDIR/mediaprep-tests-PID`; made on first use, after removing those of processes that
    /// are gone (a run that was killed).
    public static let root: String = {
        let tmp = NSTemporaryDirectory()
        let fm = FileManager.default
        for name in (try? fm.contentsOfDirectory(atPath: tmp)) ?? [] where name.hasPrefix("mediaprep-tests-") {
            if let pid = Int32(name.dropFirst("mediaprep-tests-".count)), kill(pid, 0) != 0, errno == ESRCH {
                try? fm.removeItem(atPath: tmp + "/" + name)
            }
        }
        let p = tmp + "/mediaprep-tests-\(getpid())"
        try? fm.createDirectory(atPath: p, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
        return p
    }()

    /// A fresh, empty folder named `prefix-UUID` inside `root`.
    public static func folder(_ prefix: String) throws -> String {
        let p = root + "/" + prefix + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }
}
