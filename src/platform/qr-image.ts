// A link's QR code as a PNG (from the `qrcode` package), for mail: mail programs show an inline
// PNG (a `cid:` part of the mail) where they drop SVG and data: URLs.
import QRCode from 'qrcode';

/** Pixels a side: sharp on a phone at the 180 CSS pixels the mail shows it. */
export const QR_PNG_SIZE = 360;

export const qrPng = (url: string): Promise<Buffer> => QRCode.toBuffer(url, { type: 'png', width: QR_PNG_SIZE, margin: 2, errorCorrectionLevel: 'M', color: { dark: '#000000', light: '#ffffff' } });
