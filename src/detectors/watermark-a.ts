import { plannedDetector } from './planned.js';

export const watermarkA = plannedDetector({
  id: 'watermark_a',
  name: 'Watermark A',
  description:
    "An invisible watermark added to images, audio and video by one large provider's models. Detection depends on that provider's tooling.",
  media_types: ['image/jpeg', 'image/png', 'image/webp', 'audio/wav', 'video/mp4'],
  inverse: false,
});
