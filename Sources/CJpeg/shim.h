#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <turbojpeg.h>
#include <jpeglib.h>
#include <jerror.h>

/* libjpeg's own API for decoding, so every warning is seen with its message code: benign ones
   (stray bytes before a marker, an unknown JFIF revision, a bad ICC or Adobe marker) leave the
   image whole; the others (premature end, bad Huffman or arithmetic code, lost sync, invalid
   progression) mean the pixels are not all there. TurboJPEG reports only the last message text. */

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int damage;          /* first damaging warning code, 0 if none */
    int benign;          /* benign warnings seen */
    char message[JMSG_LENGTH_MAX];
} cjpeg_err;

static inline int cjpeg_is_benign(int code) {
    return code == JWRN_EXTRANEOUS_DATA || code == JWRN_JFIF_MAJOR || code == JWRN_BOGUS_ICC || code == JWRN_ADOBE_XFORM;
}

static void cjpeg_error_exit(j_common_ptr c) {
    cjpeg_err *e = (cjpeg_err *)c->err;
    (*c->err->format_message)(c, e->message);
    longjmp(e->jump, 1);
}

static void cjpeg_emit(j_common_ptr c, int level) {
    if (level >= 0) return;  /* trace messages */
    cjpeg_err *e = (cjpeg_err *)c->err;
    int code = c->err->msg_code;
    if (cjpeg_is_benign(code)) { e->benign++; return; }
    if (e->damage == 0) {
        e->damage = code;
        (*c->err->format_message)(c, e->message);
    }
}

/* Progressive files with thousands of tiny scans take quadratic time (a known decompression bomb);
   real encoders write about 10. */
#define CJPEG_MAX_SCANS 500
static void cjpeg_progress(j_common_ptr c) {
    if (c->is_decompressor) {
        j_decompress_ptr d = (j_decompress_ptr)c;
        if (d->input_scan_number > CJPEG_MAX_SCANS) {
            cjpeg_err *e = (cjpeg_err *)c->err;
            snprintf(e->message, sizeof(e->message), "more than %d scans", CJPEG_MAX_SCANS);
            longjmp(e->jump, 1);
        }
    }
}

static inline void cjpeg_init_err(struct jpeg_decompress_struct *cinfo, cjpeg_err *err) {
    cinfo->err = jpeg_std_error(&err->pub);
    err->pub.error_exit = cjpeg_error_exit;
    err->pub.emit_message = cjpeg_emit;
    err->damage = 0;
    err->benign = 0;
    err->message[0] = 0;
}

/* Header fields; colorspace is libjpeg's J_COLOR_SPACE of the file. Returns 0, or -1 with `message`. */
typedef struct { int width, height, components, colorspace, progressive, arithmetic, damage; char message[JMSG_LENGTH_MAX]; } cjpeg_header_info;

static inline int cjpeg_read_header(const unsigned char *data, unsigned long size, cjpeg_header_info *info) {
    struct jpeg_decompress_struct cinfo;
    cjpeg_err err;
    cjpeg_init_err(&cinfo, &err);
    if (setjmp(err.jump)) {
        memcpy(info->message, err.message, sizeof(info->message));
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    info->width = (int)cinfo.image_width;
    info->height = (int)cinfo.image_height;
    info->components = cinfo.num_components;
    info->colorspace = (int)cinfo.jpeg_color_space;
    info->progressive = cinfo.progressive_mode;
    info->arithmetic = cinfo.arith_code;
    info->damage = err.damage;
    memcpy(info->message, err.message, sizeof(info->message));
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

/* Decodes at 1/scale_denom into `out` (rows of out_width * components bytes). out_space is
   JCS_GRAYSCALE (luma only), JCS_RGB or JCS_CMYK. Returns 0 when whole, 1 when a damaging
   warning was seen (code in *damage, text in message), -1 on error, -2 when the header claims
   more pixels than the data can hold. Decoding always runs to EOI
   so damage anywhere in the file is seen. */
static inline int cjpeg_decode(const unsigned char *data, unsigned long size, int scale_denom, int out_space,
                               unsigned char *out, int out_width, int out_height, int *damage, char *message, int message_len) {
    struct jpeg_decompress_struct cinfo;
    cjpeg_err err;
    JSAMPROW rows[16];
    cjpeg_init_err(&cinfo, &err);
    if (setjmp(err.jump)) {
        snprintf(message, (size_t)message_len, "%s", err.message);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, size);
    jpeg_read_header(&cinfo, TRUE);
    /* Huffman coding spends at least one bit per 8x8 luma block (a DC code); a frame header that
       claims more blocks than the data has bits is refused before the output is allocated. */
    if (!cinfo.arith_code) {
        double blocks = ((cinfo.image_width + 7) / 8) * (double)((cinfo.image_height + 7) / 8);
        if ((double)size * 8.0 < blocks) {
            snprintf(message, (size_t)message_len, "the frame header claims %ux%u, more than %lu bytes can hold",
                     cinfo.image_width, cinfo.image_height, size);
            jpeg_destroy_decompress(&cinfo);
            return -2;
        }
    }
    struct jpeg_progress_mgr progress;
    progress.progress_monitor = cjpeg_progress;
    cinfo.progress = &progress;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    cinfo.out_color_space = (J_COLOR_SPACE)out_space;
    cinfo.dct_method = JDCT_ISLOW;
    jpeg_start_decompress(&cinfo);
    if ((int)cinfo.output_width != out_width || (int)cinfo.output_height != out_height) {
        snprintf(message, (size_t)message_len, "decoder output %ux%u, expected %dx%d", cinfo.output_width, cinfo.output_height, out_width, out_height);
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    size_t stride = (size_t)out_width * (size_t)cinfo.output_components;
    while (cinfo.output_scanline < cinfo.output_height) {
        int n = 0;
        while (n < 16 && cinfo.output_scanline + (JDIMENSION)n < cinfo.output_height) {
            rows[n] = out + (size_t)(cinfo.output_scanline + (JDIMENSION)n) * stride;
            n++;
        }
        if (jpeg_read_scanlines(&cinfo, rows, (JDIMENSION)n) == 0) break;
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *damage = err.damage;
    snprintf(message, (size_t)message_len, "%s", err.message);
    return err.damage ? 1 : 0;
}

static inline int cjpeg_space_gray(void) { return JCS_GRAYSCALE; }
static inline int cjpeg_space_rgb(void) { return JCS_RGB; }
static inline int cjpeg_space_cmyk(void) { return JCS_CMYK; }
static inline int cjpeg_space_ycck(void) { return JCS_YCCK; }
static inline int cjpeg_is_eof_warning(int code) { return code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER; }
#endif
