import Foundation

/// Stage timings on stderr when MEDIAPREP_TRACE is set; how the pipeline's costs were measured.
enum Trace {
    static let enabled = ProcessInfo.processInfo.environment["MEDIAPREP_TRACE"] != nil

    @discardableResult
    static func time<T>(_ label: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
        guard enabled else { return try body() }
        let start = DispatchTime.now().uptimeNanoseconds
        let r = try body()
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        FileHandle.standardError.write(Data(String(format: "trace %-28@ %8.1f ms\n", label() as NSString, ms).utf8))
        return r
    }

    static func note(_ s: @autoclosure () -> String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("trace \(s())\n".utf8))
    }
}
