import FuzzSupport
@_spi(Fuzz) import MediaPrep

@_cdecl("fuzz_document_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv, FuzzEntryPoints.document)
}
