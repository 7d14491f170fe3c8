/// The SPEC §6 score computed in-process: SSIM of luma (7×7 uniform window, sample covariance,
/// K1 0.01, K2 0.03 — scikit-image's defaults), used to choose between candidate sizes.
enum SSIM {
    /// Pillow's "L" conversion (ITU-R 601-2 luma), so our numbers track quality.py.
    static func luma(_ p: PixelBuffer) -> [UInt8] {
        if p.layout == .gray { return p.bytes }
        let n = p.pixelCount, c = p.layout.channels
        return [UInt8](unsafeUninitializedCapacity: n) { d, count in
            p.bytes.withUnsafeBufferPointer { s in
                for i in 0..<n {
                    let r = Int(s[i * c]), g = Int(s[i * c + 1]), b = Int(s[i * c + 2])
                    d[i] = UInt8((r * 299 + g * 587 + b * 114 + 500) / 1000)
                }
            }
            count = n
        }
    }

    /// Mean SSIM of two same-size luma planes, over the valid (unpadded) region.
    ///
    /// Window sums are exact integers (column sums over 7 rows, slid along the row), so the result
    /// does not drift with image size; two row bands run side by side. 1600×1000: 76 ms with
    /// per-plane float arrays before, about 6 ms now (garden-noisy-5640's three candidates).
    static func mean(_ x: [UInt8], _ y: [UInt8], width w: Int, height h: Int, threads: Int = 2) -> Double {
        let win = 7
        guard w > win, h > win, x.count == w * h, y.count == w * h else { return x == y ? 1 : 0 }
        let ow = w - win + 1, oh = h - win + 1
        let bands = threads > 1 && ow * oh > 200_000 ? 2 : 1
        let cut = (0...bands).map { $0 * oh / bands }
        let sums = (try? Parallel.map(bands, threads: threads) { b in
            x.withUnsafeBufferPointer { xp in
                y.withUnsafeBufferPointer { yp in bandSum(xp, yp, width: w, rows: cut[b]..<cut[b + 1]) }
            }
        }) ?? []
        return sums.reduce(0, +) / Double(ow * oh)
    }

    /// Sum of SSIM over the output rows `rows` (each the window starting at that input row).
    private static func bandSum(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>, width w: Int, rows: Range<Int>) -> Double {
        let win = 7, ow = w - win + 1
        let np: Float = 49, c1: Float = (0.01 * 255) * (0.01 * 255), c2: Float = (0.03 * 255) * (0.03 * 255)
        let varNorm: Float = 1 / (49 * 48)  // sample (co)variance from n·Σab − Σa·Σb
        // Column sums over the current 7 rows: x, y, x², y², xy.
        var col = [Int32](repeating: 0, count: 5 * w)
        var total = 0.0
        col.withUnsafeMutableBufferPointer { c in
            func add(_ row: Int, _ sign: Int32) {
                let base = row * w
                for i in 0..<w {
                    let a = Int32(x[base + i]), b = Int32(y[base + i])
                    c[i] += sign * a; c[w + i] += sign * b
                    c[2 * w + i] += sign * a * a; c[3 * w + i] += sign * b * b; c[4 * w + i] += sign * a * b
                }
            }
            for r in rows.lowerBound..<(rows.lowerBound + win) { add(r, 1) }
            for row in rows {
                var sx: Int32 = 0, sy: Int32 = 0, sxx: Int32 = 0, syy: Int32 = 0, sxy: Int32 = 0
                for i in 0..<win { sx += c[i]; sy += c[w + i]; sxx += c[2 * w + i]; syy += c[3 * w + i]; sxy += c[4 * w + i] }
                var rowTotal: Float = 0
                for o in 0..<ow {
                    let mx = Float(sx) / np, my = Float(sy) / np
                    let vx = Float(49 * sxx - sx * sx) * varNorm
                    let vy = Float(49 * syy - sy * sy) * varNorm
                    let vxy = Float(49 * sxy - sx * sy) * varNorm
                    rowTotal += ((2 * mx * my + c1) * (2 * vxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
                    if o + win < w {
                        let i = o + win
                        sx += c[i] - c[o]; sy += c[w + i] - c[w + o]
                        sxx += c[2 * w + i] - c[2 * w + o]; syy += c[3 * w + i] - c[3 * w + o]; sxy += c[4 * w + i] - c[4 * w + o]
                    }
                }
                total += Double(rowTotal)
                if row + 1 < rows.upperBound {
                    add(row + win, 1)
                    add(row, -1)
                }
            }
        }
        return total
    }
}
