// A link as a QR code (SVG, from the `qrcode` package): printed on flyers, shown on a screen.
import QRCode from 'qrcode';

export const qrSvg = (url: string): Promise<string> => QRCode.toString(url, { type: 'svg', margin: 2, errorCorrectionLevel: 'M', color: { dark: '#000000', light: '#ffffff' } });
