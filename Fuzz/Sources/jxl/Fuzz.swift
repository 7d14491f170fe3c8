import FuzzSupport
@_spi(Fuzz) import MediaPrep

@_cdecl("fuzz_jxl_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { d in
        if !FuzzEntryPoints.jxlHeaderAgrees(d) { fatalError("a JPEG XL header and its decode disagree") }  // decodes, as FuzzEntryPoints.jxl does
    }
}
