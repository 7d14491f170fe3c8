// swift-tools-version:6.0
// libFuzzer targets, one per parser that sees untrusted bytes. Built and run by scripts/qa/fuzz.sh:
//   swift build --package-path Fuzz -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
import PackageDescription

let targets = ["sniff", "exif", "jpeg", "png", "container", "plan", "heif", "jxl", "webp", "strip", "tiff", "document"]

let package = Package(
    name: "MediaPrepFuzz",
    dependencies: [.package(name: "mediaprep", path: "..")],
    targets: [.target(name: "FuzzSupport")] + targets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzSupport", .product(name: "MediaPrep", package: "mediaprep")],
                          path: "Sources/\(name)")
    },
    swiftLanguageModes: [.v6]
)
