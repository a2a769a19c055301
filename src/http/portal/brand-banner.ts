// The brand's pitch at the top of its program's portal page (the header carries its name and logo).
import type { Brand } from '../../core/brand.js';
import { type Html, html } from '../kit/html.js';

export const brandBanner = (brand: Brand): Html =>
  brand.pitch ? html`<section class="pitch" aria-label="From ${brand.name}"><p class="lead">${brand.pitch}</p></section>` : html``;
