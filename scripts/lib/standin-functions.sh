# The stand-in's functions, by the profile's names, for the scripts that capture them (sourced by
# scripts/capture-standin and scripts/demo, so the two cannot drift apart).

# Every function of the car step and of what runs after it per racer: the arithmetic layer, the
# step's stages, the track pass, the racer's turn.
standin_step_functions=(math::dot16 math::cross16 math::scale16_in_place math::scale16 Tables::length16 Tables::cos16
     Tables::sin16 body::exp16 step::step drive::automatic drive::gears frames::wheel_axes
     frames::turn drive::engine drive::torque drive::brakes forces::air forces::grip forces::wheel_drive
     suspension::springs tyres::tyres body::integrate suspension::substeps suspension::place_points
     collide::track collide::touch_face collide::chassis_searches collide::over_quad collide::over_triangle
     drive::wheel_spin step::skid_smoke collide::wall_depth collide::push_faces collide::sector_walls
     body::impacts suspension::travel body::push_out race::beacon_test step::stuck step::upside_down
     step::pose step::wheel_roll race::racer_step)

# The put-back and what only it calls: a few calls a race, so captured from every car step.
standin_putback_functions=(putback::put_back putback::car_reset putback::clear_pose putback::place world::sector_near
     world::sector_any paths::heading paths::next_point)
