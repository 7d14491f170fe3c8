// SwiftPM points an executable's `main` at `<module>_main`, so libFuzzer's own main is not used:
// each target's main hands over to libFuzzer's driver through `runFuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// The entry point libFuzzer calls; one per process, set before the driver starts.
nonisolated(unsafe) private var body: (([UInt8]) -> Void)?

/// Runs libFuzzer with the process's arguments, feeding every input to `test`.
public func runFuzzer(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ test: @escaping ([UInt8]) -> Void) -> Int32 {
    body = test
    var argc = argc
    var argv = argv
    return llvmFuzzerRunDriver(&argc, &argv) { data, count in
        body?(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
        return 0
    }
}
