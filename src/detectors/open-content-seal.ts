import { plannedDetector } from './planned.js';

export const openContentSeal = plannedDetector({
  id: 'open_content_seal',
  name: 'Open content seal',
  description:
    'A family of open-source watermarks for video, audio and images. Detection needs a model runtime.',
  media_types: ['image/jpeg', 'image/png', 'video/mp4', 'audio/wav'],
  inverse: false,
});
