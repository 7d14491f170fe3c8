extension PictureMetadata {
    /// What a WebP's RIFF chunks carry (EXIF with GPS in it, XMP), for `check`; none of it is sent.
    /// ICCP is the colour step's, not reported here.
    package init(webp data: [UInt8]) {
        self.init(jpeg: [])
        for (tag, body) in WebPChunks.chunks(data) {
            switch tag {
            case "EXIF":
                exif = true
                // Some writers keep JPEG's "Exif\0\0" before the TIFF header.
                let tiff = data[body].starts(with: Array("Exif\0\0".utf8)) ? data[body].dropFirst(6) : data[body]
                if Self.hasGPS(tiff) { gps = true }
            case "XMP ": xmp = true
            default: break
            }
        }
    }
}

extension PictureMetadata {
    /// What a PNG's chunks say about it (eXIf with GPS in it, text), for `check`; none of it is sent.
    package init(png data: [UInt8]) {
        self.init(jpeg: [])
        for c in PNGChunks.chunks(data) {
            switch c.type {
            case "IEND": trailingBytes = data.count - (c.body.upperBound + 4)
            case "eXIf":
                exif = true
                if Self.hasGPS(data[c.body]) { gps = true }
            case "tEXt", "zTXt", "iTXt":
                let keyword = String(decoding: data[c.body].prefix { $0 != 0 }, as: UTF8.self)
                if keyword == "XML:com.adobe.xmp" { xmp = true } else { comment = true }
            default: break
            }
        }
    }
}
