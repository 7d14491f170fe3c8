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
        // No pkgConfig: its link flags would load libjpeg and TurboJPEG into every process. The
        // headers are in Debian's default include path; the libraries are opened on first use (shim.h).
        .systemLibrary(
            name: "CJpeg", path: "Sources/CJpeg",
            providers: [.apt(["libturbojpeg0-dev", "libjpeg62-turbo-dev"])]),
        // No pkgConfig, as CJpeg: libpng and zlib are opened on first use (shim.h).
        .systemLibrary(
            name: "CPng", path: "Sources/CPng",
            providers: [.apt(["libpng-dev"])]),
        // No pkgConfig: its link flags would load FFmpeg into every process. The headers are in
        // Debian's default include path; the libraries are opened on first use (shim.h).
        .systemLibrary(
            name: "CFFmpeg", path: "Sources/CFFmpeg",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev", "libswresample-dev", "libavfilter-dev"])]),
        // Link previews only: opened on first use (shim.h), for the same reason as FFmpeg.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        // Colour profiles only: opened on first use (shim.h).
        .systemLibrary(
            name: "CLcms", path: "Sources/CLcms",
            providers: [.apt(["liblcms2-dev"])]),
        // HEIC/HEIF/AVIF only: opened on first use (shim.h).
        .systemLibrary(
            name: "CHeif", path: "Sources/CHeif",
            providers: [.apt(["libheif-dev"])]),
        // JPEG XL only: opened on first use (shim.h).
        .systemLibrary(
            name: "CJxl", path: "Sources/CJxl",
            providers: [.apt(["libjxl-dev"])]),
        // Animated WebP only: opened on first use (shim.h).
        .systemLibrary(
            name: "CWebP", path: "Sources/CWebP",
            providers: [.apt(["libwebp-dev"])]),
        // Inflating a PNG read whole: opened on first use (shim.h).
        .systemLibrary(
            name: "CDeflate", path: "Sources/CDeflate",
            providers: [.apt(["libdeflate-dev"])]),
        // TIFF and BigTIFF only: opened on first use (shim.h).
        .systemLibrary(
            name: "CTiff", path: "Sources/CTiff",
            providers: [.apt(["libtiff-dev"])]),
        // DNGs of sensor data alone: opened on first use (shim.h).
        .systemLibrary(
            name: "CRaw", path: "Sources/CRaw",
            providers: [.apt(["libraw-dev"])]),
        // PDFs only: opened on first use (shim.h).
        .systemLibrary(
            name: "CQpdf", path: "Sources/CQpdf",
            providers: [.apt(["libqpdf-dev"])]),
        // ZIP packages (Office, OpenDocument, EPUB, archives) only: opened on first use (shim.h).
        .systemLibrary(
            name: "CZip", path: "Sources/CZip",
            providers: [.apt(["libzip-dev"])]),
        .target(name: "UploadPlanner"),
        .target(
            name: "MediaPrep", dependencies: ["CJpeg", "CPng", "CFFmpeg", "CCurl", "CLcms", "CHeif", "CJxl", "CWebP", "CDeflate", "CTiff", "CRaw", "CQpdf", "CZip", "UploadPlanner"],
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
