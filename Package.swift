// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "mediaprep",
    products: [
        .library(name: "MediaPrep", targets: ["MediaPrep"]),
        .library(name: "UploadPlanner", targets: ["UploadPlanner"]),
        .executable(name: "mediaprep", targets: ["mediaprep"]),
    ],
    targets: [
        .systemLibrary(
            name: "CJpeg", path: "Sources/CJpeg", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev", "libjpeg62-turbo-dev"])]),
        .systemLibrary(
            name: "CPng", path: "Sources/CPng", pkgConfig: "libpng16",
            providers: [.apt(["libpng-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg", pkgConfig: "libswscale",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev"])]),
        .target(name: "UploadPlanner"),
        .target(
            name: "MediaPrep", dependencies: ["CJpeg", "CPng", "CFFmpeg", "UploadPlanner"],
            linkerSettings: [.linkedLibrary("m")]),
        .executableTarget(name: "mediaprep", dependencies: ["MediaPrep", "UploadPlanner"]),
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "MediaPrepTests", dependencies: ["MediaPrep", "UploadPlanner", "TestSupport"]),
        .testTarget(name: "UploadPlannerTests", dependencies: ["UploadPlanner"]),
        .testTarget(name: "PublicAPITests", dependencies: ["MediaPrep", "UploadPlanner"]),
        .testTarget(name: "CLITests", dependencies: ["mediaprep", "MediaPrep", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
