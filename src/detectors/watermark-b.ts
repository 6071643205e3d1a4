import { plannedDetector } from './planned.js';

export const watermarkB = plannedDetector({
  id: 'watermark_b',
  name: 'Watermark B',
  description:
    "The marker carried by one provider's image-model output. It shares the detection path of watermark_a.",
  media_types: ['image/jpeg', 'image/png', 'image/webp'],
  inverse: false,
});
