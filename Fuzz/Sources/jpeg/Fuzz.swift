import MediaPrep

// SwiftPM points an executable's `main` at `<module>_main`, so libFuzzer's own main is not used:
// this one hands over to libFuzzer's driver with the same arguments.
@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(_ argc: UnsafeMutablePointer<Int32>,
               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
               _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

@_cdecl("fuzz_jpeg_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var argc = argc
    var argv = argv
    return runDriver(&argc, &argv) { data, count in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        FuzzEntryPoints.jpeg(bytes)
        return 0
    }
}
