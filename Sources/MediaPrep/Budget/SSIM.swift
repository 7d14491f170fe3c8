/// The SPEC §6 score computed in-process: SSIM of luma (7×7 uniform window, sample covariance,
/// K1 0.01, K2 0.03 — scikit-image's defaults), used to choose between candidate sizes.
enum SSIM {
    /// Pillow's "L" conversion (ITU-R 601-2 luma), so our numbers track quality.py.
    static func luma(_ p: PixelBuffer) -> [UInt8] { p.luma() }

    /// Mean SSIM of two same-size luma planes, over the valid (unpadded) region.
    ///
    /// Window sums are exact integers (column sums over 7 rows, slid along the row), so the result
    /// does not drift with image size; two row bands run side by side. 1600×1000: 76 ms with
    /// per-plane float arrays before, about 7 ms, then 5 (garden-noisy-5640's three candidates).
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
    /// Per row: the column sums slid down a row in one pass (the row entering added, the row leaving
    /// taken off), each window's sums added up from its seven columns, the formula evaluated into a
    /// row of values, then those summed in order: the first three loops vectorise, and the sum is
    /// the one the formula's own loop made, bit for bit (release build, one thread: 1600×1000 6.9 →
    /// 5.1 ms; a 8640×1080 panorama's view, scored for every candidate size, 41 → 30 ms). Summed in
    /// four Double lanes it was 4.3 and 25 ms, but no longer the same number.
    private static func bandSum(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>, width w: Int, rows: Range<Int>) -> Double {
        let win = 7, ow = w - win + 1
        let c1: Float = (0.01 * 255) * (0.01 * 255) * 49 * 49, c2: Float = (0.03 * 255) * (0.03 * 255) * 49 * 48
        // Column sums over the current 7 rows (x, y, x², y², xy), window sums per output column, values.
        let col = UnsafeMutablePointer<Int32>.allocate(capacity: 5 * w)
        let sum = UnsafeMutablePointer<Int32>.allocate(capacity: 5 * ow)
        let value = UnsafeMutablePointer<Float>.allocate(capacity: ow)
        defer { col.deallocate(); sum.deallocate(); value.deallocate() }
        col.initialize(repeating: 0, count: 5 * w)
        guard let xb = x.baseAddress, let yb = y.baseAddress else { return 0 }
        let cx = col, cy = col + w, cxx = col + 2 * w, cyy = col + 3 * w, cxy = col + 4 * w
        for r in rows.lowerBound..<(rows.lowerBound + win) {
            let xr = xb + r * w, yr = yb + r * w
            for i in 0..<w {
                let a = Int32(xr[i]), b = Int32(yr[i])
                cx[i] &+= a; cy[i] &+= b; cxx[i] &+= a &* a; cyy[i] &+= b &* b; cxy[i] &+= a &* b
            }
        }
        var total = 0.0
        for row in rows {
            for k in 0..<5 {
                let c = col + k * w, s = sum + k * ow
                for o in 0..<ow { s[o] = c[o] &+ c[o + 1] &+ c[o + 2] &+ c[o + 3] &+ c[o + 4] &+ c[o + 5] &+ c[o + 6] }
            }
            // Means times 49 and (co)variances times 49·48 (c1, c2 scaled alike): the same ratio, exact
            // integer numerators.
            let sx = sum, sy = sum + ow, sxx = sum + 2 * ow, syy = sum + 3 * ow, sxy = sum + 4 * ow
            for o in 0..<ow {
                let a = Float(sx[o]), b = Float(sy[o])
                let vx = Float(49 &* sxx[o] &- sx[o] &* sx[o]), vy = Float(49 &* syy[o] &- sy[o] &* sy[o])
                let vxy = Float(49 &* sxy[o] &- sx[o] &* sy[o])
                value[o] = ((2 * a * b + c1) * (2 * vxy + c2)) / ((a * a + b * b + c1) * (vx + vy + c2))
            }
            var rowTotal: Float = 0
            for o in 0..<ow { rowTotal += value[o] }
            total += Double(rowTotal)
            if row + 1 < rows.upperBound {
                let (ar, br) = (xb + (row + win) * w, yb + (row + win) * w)  // the row entering
                let (dr, er) = (xb + row * w, yb + row * w)                  // the row leaving
                for i in 0..<w {
                    let a = Int32(ar[i]), b = Int32(br[i]), d = Int32(dr[i]), e = Int32(er[i])
                    cx[i] &+= a &- d; cy[i] &+= b &- e
                    cxx[i] &+= a &* a &- d &* d; cyy[i] &+= b &* b &- e &* e; cxy[i] &+= a &* b &- d &* e
                }
            }
        }
        return total
    }
}
