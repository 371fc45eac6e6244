import { Module } from '@nestjs/common';
import { UiController } from './ui.controller.js';

/** `/ui`: the generative UI bundles of `langgraph.json`. */
@Module({ controllers: [UiController] })
export class UiModule {}
