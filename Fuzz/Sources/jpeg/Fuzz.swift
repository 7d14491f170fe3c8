import FuzzSupport
@_spi(Fuzz) import MediaPrep

@_cdecl("fuzz_jpeg_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { d in
        FuzzEntryPoints.jpeg(d)
        if !FuzzEntryPoints.jpegMeasureAgrees(d) { fatalError("a measured JPEG quality and the file libjpeg writes disagree") }
    }
}
