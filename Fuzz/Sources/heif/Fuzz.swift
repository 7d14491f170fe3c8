import FuzzSupport
@_spi(Fuzz) import MediaPrep

@_cdecl("fuzz_heif_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { d in
        if !FuzzEntryPoints.heifHeaderAgrees(d) { fatalError("a HEIF header and its decode disagree") }  // decodes, as FuzzEntryPoints.heif does
    }
}
