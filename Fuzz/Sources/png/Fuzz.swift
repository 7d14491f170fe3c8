import FuzzSupport
@_spi(Fuzz) import MediaPrep

@_cdecl("fuzz_png_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { d in
        FuzzEntryPoints.png(d)
        // libdeflate's way and libpng's own must agree on every input (a trap saves the input).
        if !FuzzEntryPoints.pngInflateAgrees(d) { fatalError("PNG inflated at once and as read disagree") }
    }
}
